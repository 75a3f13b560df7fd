"""Thread ids that reach a function other than as `threadIdx.x`: the parameters and class
members whose kinds `flow.propagate` starts from or carries (`param_seeds`, `refuted`,
`Members`).

What counts as a thread id, and why:

- A parameter takes the kinds of the arguments its callers in this file pass (`flow`): a
  function called with `threadIdx.x` gets a thread-id parameter. That is the sound case.
- A device function in a header is called from the files that include it (nccl's
  `reduceCopy(int thread, int nThreads, ...)`): its callers are mostly not in view. Its integer
  parameter counts by name when the name says nothing but "this thread's index" (`tid`,
  `thread`, `thread_id`, `tidInBlock` ...) or "the threads working" (`nThreads`, `num_threads`:
  a block-size kind, so that `nThreads / 32` is a warp count), unless a call of this file
  passes there a value without that kind (`f(0, n)`, `f(i, 7)`, or none: a default): then only
  what the callers pass counts. A name that only *might* be a thread index (`t`, `idx`, `i`,
  `rank`, `lane`, `nworkers`) never counts: guessing there would add false positives.
- A class member takes the kinds of what its constructor's initialiser list and the class's
  methods assign it (`tid(tid)`, `wid(tid % WARP_SIZE)`), and every method of the class that
  does not declare that name itself reads them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from hipport.source import Node
from hipport.wave64.facts.data import Func
from hipport.wave64.facts.kinds import BDIM, TID

if TYPE_CHECKING:
    from hipport.wave64.facts import Facts

_TID_NAME = re.compile(r"(?i)^(?:thread|tid|thread_?id|thread_?idx|thread_?index|tid_?in_?block|"
                       r"thread_?id_?in_?block|local_?tid)$")
_COUNT_NAME = re.compile(r"(?i)^(?:n_?threads|num_?threads|thread_?count|threads_?per_?block)$")
# A template parameter that can only be the block's thread count (`template <int kNumThreads>`,
# `BLOCK_DIM`, `BlockSize`): `kNumThreads / 32` is then a warp count. Only a template parameter:
# a run-time `block_size` may count anything.
_BLOCK_TPARAM = re.compile(r"(?i)^(?:k_?)?(?:n_?threads|num_?threads(?:_?per_?block)?|thread_?count|"
                           r"threads_?per_?block|block_?dim(?:_?x)?|block_?size|block_?threads|cta_?size)$")


def name_kind(name: str) -> int:
    """TID or BDIM for a name that can only mean this thread's index or the block's threads."""
    if _TID_NAME.match(name):
        return TID
    if _COUNT_NAME.match(name):
        return BDIM
    return 0


def block_tparam(name: str) -> bool:
    """A template parameter named as the block's thread count."""
    return bool(_BLOCK_TPARAM.match(name))


def param_seeds(fx: Facts) -> list[tuple[Func, str, int, int]]:
    """(function, parameter, kind, position) of the integer parameters of device functions
    named as thread ids or thread counts."""
    out = []
    for fn in fx.funcs:
        if not fn.device or not fn.nodes:
            continue
        for i, p in enumerate(fn.params):
            k = name_kind(p.name)
            if k and p.bits is not None:
                out.append((fn, p.name, k, i))
    return out


def refuted(fx: Facts, seeds: list[tuple[Func, str, int, int]],
            calls: list[tuple[Func, Func, list[Node]]]) -> set[tuple[Func, str, int, int]]:
    """The seeds some call of this file contradicts: at their position it passes a value
    without that kind (or none: a default argument)."""
    if not seeds:
        return set()
    by_fn: dict[Func, list[tuple[Func, str, int, int]]] = {}
    for sd in seeds:
        by_fn.setdefault(sd[0], []).append(sd)
    out = set()
    fx._memo.clear()
    for caller, target, args in calls:
        for sd in by_fn.get(target, ()):
            i = sd[3]
            if i >= len(args) or not fx.kinds(args[i], caller) & sd[2]:
                out.add(sd)
    fx._memo.clear()
    return out


class Members:
    """The data members of the classes whose methods are analysed, and the kinds each holds."""

    def __init__(self, fx: Facts) -> None:
        self.of: dict[int, Node] = {}  # function node id -> its class's field_declaration_list
        self.names: dict[int, set[str]] = {}  # field_declaration_list id -> member names
        self.env: dict[int, dict[str, int]] = {}  # field_declaration_list id -> member kinds
        self.methods: dict[int, list[Func]] = {}
        for fn in fx.funcs:
            if not fn.nodes:
                continue
            body = _class_body(fx, fn.node)
            if body is None:
                continue
            key = body.id
            if key not in self.names:
                names: set[str] = set()
                for d in body.named_children:
                    if d.type == "field_declaration":
                        names.update(v.name for v in fx.declared_vars(d))
                self.names[key] = names
                self.env[key] = {}
                self.methods[key] = []
            self.of[fn.node.id] = body
            self.methods[key].append(fn)

    def target(self, fn: Func, name: str, initialiser: bool = False) -> dict[str, int] | None:
        """The kinds of member `name` of fn's class, when `name` there is that member (always
        in an initialiser list: `tid(tid)` sets the member from the parameter)."""
        body = self.of.get(fn.node.id)
        if body is None or (name in fn.vars and not initialiser) or name not in self.names[body.id]:
            return None
        return self.env[body.id]

    def initialisers(self, fx: Facts, fn: Func) -> list[tuple[str, Node]]:
        """(member, value) of a constructor's initialiser list: `tid(tid)`, `wid(tid % 32)`."""
        out = []
        for c in fn.node.children:
            if c.type != "field_initializer_list":
                continue
            for fi in c.named_children:
                if fi.type != "field_initializer" or not fi.named_child_count:
                    continue
                member, args = fi.named_child(0), fi.named_child(fi.named_child_count - 1)
                if member is None or args is None or member.type != "field_identifier":
                    continue
                values = [a for a in args.named_children if a.type != "comment"]
                if len(values) == 1:
                    out.append((fx.src.text(member), values[0]))
        return out

    def clear(self) -> None:
        for env in self.env.values():
            env.clear()

    def spread(self) -> bool:
        """Give each method the kinds of its class's members it does not shadow."""
        changed = False
        for key, env in self.env.items():
            if not env:
                continue
            for fn in self.methods[key]:
                for name, k in env.items():
                    if not k or name in fn.vars:
                        continue
                    old = fn.env.get(name, 0)
                    if old | k != old:
                        fn.env[name] = old | k
                        changed = True
        return changed


def constructors_of_collective_classes(fx: Facts) -> list[Func]:
    """The constructors whose class has a collective method: their initialiser lists compute
    the lane and warp ids the methods use (`wid(tid % WARP_SIZE)`)."""
    members = Members(fx)
    out = []
    for methods in members.methods.values():
        if any(m.collective for m in methods):
            out += [m for m in methods if not m.collective and m.device and
                    any(c.type == "field_initializer_list" for c in m.node.children)]
    return out


def _class_body(fx: Facts, node: Node) -> Node | None:
    """The field_declaration_list of the class a function is defined in (None outside one),
    found once per function (each `Members` asks for every analysed function)."""
    got = fx._class_bodies.get(node.id, _UNKNOWN)
    if got is _UNKNOWN:
        got = fx._class_bodies[node.id] = _find_class_body(fx, node)
    return got  # type: ignore[return-value]


_UNKNOWN = object()


def _find_class_body(fx: Facts, node: Node) -> Node | None:
    up = fx.src.ancestors(node)
    p = next(up, None)
    while p is not None and p.type == "template_declaration":
        p = next(up, None)
    if p is None or p.type != "field_declaration_list":
        return None
    owner = next(up, None)
    return p if owner is not None and owner.type in ("class_specifier", "struct_specifier") else None
