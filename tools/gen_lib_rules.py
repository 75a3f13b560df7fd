#!/usr/bin/env python3
"""Generate the library mapping tables rules/api/<family>.toml.

The TOML files are the committed source of truth; this script is how they were
first produced, and how they can be refreshed.  It is not run by the tests.

Inputs (none of them is committed; fetch them into one folder, default
/tmp/wh, or point HIPPORT_GEN_INPUTS at it):

  CUDA side, headers from NVIDIA's wheels (pip download --no-deps NAME, then
  unzip '*/include/*'):
    cuda/      nvidia-cublas nvidia-curand nvidia-cufft nvidia-cusparse
               nvidia-cusolver nvidia-cuda-nvrtc nvidia-nccl-cu13  (CUDA 13.x)
    old/       nvidia-cudnn-cu13, nvidia-cusparse-cu11 (CUDA 11.8: names
               that CUDA 12 removed), nvidia-cusolver-cu12, nvidia-cublas-cu12
    plus /usr/local/cuda/include (CUDA 13.0: nvtx3, cooperative_groups, cub).
  HIP side:
    x/hp<ver>/hip/c*.pxd   the extern declarations shipped in the
               hip-python wheels 6.2 .. 7.2 (one per ROCm release: which
               hipBLAS / hipSPARSE / hipSOLVER / hipFFT / hipRAND / RCCL /
               roctx / hipRTC names each ROCm release declares)
    /usr/include/{hipsparse,hiprand,hip}   Debian's libhipsparse-dev and
               libhiprand-dev (5.3.3) and libamdhip64-dev (5.2.3).
  Facts that no header carries (first ROCm release of names added between
  5.2 and 6.2, hipBLASLt and MIOpen names, HIP-side deprecations, semantic
  caveats) are written below as data, checked against the HIPIFY reference
  tables and the libraries' change logs.

Versions: `since` is the first ROCm release whose HIP library has the name,
floored at 5.2 (the oldest release this project targets): "5.2" means
"5.2 or earlier".

Usage:  python3 tools/gen_lib_rules.py [family ...]
"""
import collections
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
INP = os.environ.get('HIPPORT_GEN_INPUTS', '/tmp/wh')
OUT = os.path.join(ROOT, 'rules', 'api')
ID = r'[A-Za-z_]\w*'
HP_VERSIONS = [('6.2', 'hp62'), ('6.3', 'hp6.3.0.540.30'), ('6.4', 'hp6.4.0.549.36'),
               ('7.0', 'hp7.0.0.555.40'), ('7.1', 'hp7.1.0.555.40'), ('7.2', 'hp7.2.0.562.43')]
BASE = '5.2'


# ---------------------------------------------------------------- scanning

def strip_comments(src):
    src = re.sub(r'/\*.*?\*/', ' ', src, flags=re.S)
    return re.sub(r'//[^\n]*', ' ', src)


def scan_c(src):
    """Identifiers a C/C++ header declares, with a rough kind."""
    out = {}
    src = re.sub(r'\\\n', ' ', strip_comments(src))
    body = []
    for line in src.split('\n'):
        m = re.match(r'\s*#\s*define\s+(' + ID + r')(\(?)\s*(.*)', line)
        if m:
            out.setdefault(m.group(1), ('macro', m.group(3).strip()))
            continue
        if not re.match(r'\s*#', line):
            body.append(line)
    body = '\n'.join(body)
    for m in re.finditer(r'\benum\s*(?:class\s+)?(' + ID + r')?\s*(?::\s*[\w\s]+)?\{([^{}]*)\}\s*(' + ID + r')?', body):
        for g in (1, 3):
            if m.group(g):
                out[m.group(g)] = ('type', '')
        for item in m.group(2).split(','):
            mm = re.match(r'\s*(' + ID + r')', item)
            if mm:
                out.setdefault(mm.group(1), ('enum', ''))
    for m in re.finditer(r'\b(?:struct|union)\s+(' + ID + r')', body):
        out.setdefault(m.group(1), ('type', ''))
    for m in re.finditer(r'\btypedef\b([^;{}]*(?:\{[^{}]*(?:\{[^{}]*\}[^{}]*)*\})?[^;{}]*);', body):
        t = m.group(1)
        fp = re.search(r'\(\s*\w*\s*\*\s*(' + ID + r')\s*\)\s*\(', t)
        if fp:
            out[fp.group(1)] = ('type', '')
            continue
        names = re.findall(ID, re.sub(r'\[[^\]]*\]', '', re.sub(r'\{.*\}', ' ', t, flags=re.S)))
        if names:
            out[names[-1]] = ('type', '')
    for m in re.finditer(r'(' + ID + r')\s*\(', body):
        name = m.group(1)
        pre = body[:m.start()].rstrip()
        if not pre or not (pre[-1].isalnum() or pre[-1] in '_*&>'):
            continue
        prev = re.search(r'(' + ID + r')\s*[*&]*\s*$', pre)
        if prev and prev.group(1) in ('return', 'else', 'case', 'new', 'delete', 'throw', 'typedef', 'sizeof'):
            continue
        out.setdefault(name, ('function', ''))
    return out


def scan_headers(paths):
    res = {}
    for p in paths:
        with open(p, encoding='utf-8', errors='replace') as f:
            src = f.read()
        for k, v in scan_c(src).items():
            res.setdefault(k, v)
        # hipRAND declares its state types through a macro
        for m in re.finditer(r'DEFINE_HIPRAND_STATE\((' + ID + r')\s*,', src):
            res.setdefault(m.group(1), ('type', ''))
            res.setdefault(m.group(1) + '_t', ('type', ''))
    return res


def scan_pxd(path):
    """Identifiers in a hip-python c*.pxd (Cython extern block)."""
    out = set()
    in_enum, enum_ind = False, 0
    if not os.path.exists(path):
        return out
    for line in open(path, encoding='utf-8'):
        s = line.rstrip('\n')
        t = s.strip()
        if not t or t.startswith('#'):
            continue
        ind = len(s) - len(s.lstrip())
        if in_enum:
            if ind > enum_ind:
                m = re.match(r'(' + ID + r')', t)
                if m:
                    out.add(m.group(1))
                continue
            in_enum = False
        m = re.match(r'(?:cdef|ctypedef)\s+(?:enum|struct|union)\s*(' + ID + r')?\s*:', t)
        if m:
            if m.group(1):
                out.add(m.group(1))
            if ' enum' in t:
                in_enum, enum_ind = True, ind
            continue
        m = re.match(r'(?:cdef|ctypedef)\s+(?:enum|struct|union)\s+(' + ID + r')\s*$', t)
        if m:
            out.add(m.group(1))
            continue
        if t.startswith('ctypedef'):
            fp = re.search(r'\(\s*\*\s*(' + ID + r')\s*\)\s*\(', t)
            names = [fp.group(1)] if fp else re.findall(ID, re.sub(r'\[[^\]]*\]', '', t))[-1:]
            out.update(names)
            continue
        if t.startswith('cdef') and not t.startswith('cdef extern'):
            m = re.search(r'(' + ID + r')\s*\(', t) or re.match(r'cdef\s+[\w\s\*]+?\b(' + ID + r')\s*(\[.*\])?\s*$', t)
            if m:
                out.add(m.group(1))
    return out


def hp_sets(lib):
    """{version: set of names} from the hip-python wheels."""
    return [(v, scan_pxd(os.path.join(INP, 'x', d, 'hip', lib + '.pxd'))) for v, d in HP_VERSIONS]


def cuda_inc(*names):
    hits = []
    for n in names:
        hits += glob.glob(os.path.join(INP, 'cuda', 'nvidia', '*', 'include', n))
    return hits


def old_inc(pkg, *names):
    hits = []
    for n in names:
        hits += glob.glob(os.path.join(INP, 'old', pkg, 'nvidia', '*', 'include', n))
    return hits


def vkey(v):
    return tuple(int(x) for x in v.split('.'))


def vmax(*vs):
    vs = [v for v in vs if v]
    return max(vs, key=vkey) if vs else None


class Avail:
    """Which ROCm release first declares a HIP name (floored at BASE)."""

    def __init__(self, base_set=(), sets=(), extra=None, first_is_base=False):
        self.base = set(base_set)     # names known to exist in ROCm <= BASE (or Debian 5.3)
        self.sets = list(sets)        # [(version, names)]
        self.extra = dict(extra or {})  # name -> version (facts from tables)
        if first_is_base and self.sets:
            # the oldest hip-python release (6.2) stands for "6.2 or earlier": names added
            # between 5.2 and 6.2 must come with an explicit version (overrides)
            self.base |= self.sets[0][1]

    def first(self, name):
        if name in self.extra:
            return self.extra[name]
        if name in self.base:
            return BASE
        for v, s in self.sets:
            if name in s:
                return v
        return None

    def removed(self, name):
        """First hip-python release that no longer declares a name it had."""
        seen = False
        for v, s in self.sets:
            if name in s:
                seen = True
            elif seen:
                return v
        return None

    def has(self, name):
        return self.first(name) is not None


# ---------------------------------------------------------------- output

class Table:
    def __init__(self, family, title, library, since, header_comment):
        self.family, self.title, self.library, self.since = family, title, library, since
        self.header_comment = header_comment
        self.groups = collections.OrderedDict()  # group title -> {cuda: entry}
        self.headers = collections.OrderedDict()
        self.namespaces = collections.OrderedDict()
        self.seen = {}

    def add(self, group, cuda, kind, hip=None, status='supported', since=None, note=None, alt=None, args=None):
        if cuda in self.seen:
            return
        e = collections.OrderedDict()
        if status == 'unsupported':
            hip = None
        elif hip is None:
            raise ValueError('%s: %s needs a hip name' % (self.family, cuda))
        if hip is not None:
            e['hip'] = hip
        e['kind'] = kind
        if status != 'supported':
            e['status'] = status
        if since and status != 'unsupported' and since != self.since:
            e['since'] = since
        if args:
            e['args'] = args
        if note:
            e['note'] = note
        if alt:
            e['alt'] = alt
        self.groups.setdefault(group, collections.OrderedDict())[cuda] = e
        self.seen[cuda] = e

    def header(self, cuda, hip, flat=None, comment=None):
        e = collections.OrderedDict(hip=hip)
        if flat:
            e['flat'] = flat
        self.headers[cuda] = (e, comment)

    def counts(self):
        c = collections.Counter()
        for g in self.groups.values():
            for e in g.values():
                c[e.get('status', 'supported')] += 1
        return c

    def write(self):
        def key(k):
            return k if re.match(r'^[A-Za-z0-9_-]+$', k) else json.dumps(k)

        def val(d):
            return '{ ' + ', '.join('%s = %s' % (k, json.dumps(v)) for k, v in d.items()) + ' }'

        lines = []
        for c in self.header_comment.strip('\n').split('\n'):
            lines.append(('# ' + c).rstrip())
        c = self.counts()
        lines.append('# Counts: %s.' % ', '.join('%s %d' % (k, c[k]) for k in
                                                  ('supported', 'deprecated', 'experimental', 'unsupported') if c[k]))
        lines.append('# Generated by tools/gen_lib_rules.py; edit by hand or regenerate.')
        lines.append('')
        lines.append('family = %s' % json.dumps(self.family))
        lines.append('title = %s' % json.dumps(self.title))
        lines.append('library = %s' % json.dumps(self.library))
        lines.append('since = %s' % json.dumps(self.since))
        lines.append('')
        lines.append('[names]')
        for g, ents in self.groups.items():
            lines.append('')
            lines.append('# ---- %s' % g)
            for k in sorted(ents, key=lambda s: (s.lower(), s)):
                lines.append('%s = %s' % (key(k), val(ents[k])))
        if self.headers:
            lines.append('')
            lines.append('[headers]')
            for k, (e, comment) in self.headers.items():
                if comment:
                    for c in comment.split('\n'):
                        lines.append('# ' + c)
                lines.append('%s = %s' % (json.dumps(k), val(e)))
        if self.namespaces:
            lines.append('')
            lines.append('[namespaces]')
            for k, e in self.namespaces.items():
                lines.append('%s = %s' % (key(k), val(e)))
        path = os.path.join(OUT, self.family + '.toml')
        with open(path, 'w', encoding='utf-8') as f:
            f.write('\n'.join(lines) + '\n')
        return path


def kind_of(cuda_kind):
    return {'macro': 'macro', 'enum': 'enum', 'type': 'type', 'function': 'function'}.get(cuda_kind, 'function')


def words(spec):
    """'5.5: A B C; 6.0: D' -> {A: '5.5', ...}"""
    out = {}
    for part in spec.split(';'):
        if not part.strip():
            continue
        v, names = part.split(':', 1)
        for n in names.split():
            out[n] = v.strip()
    return out


def skip_internal(name, value=''):
    return bool(re.search(r'_H_?$|_H_INCLUDED$|^__|API$|WINAPI$|_DEPRECATED|_EXPORT$', name))


# ================================================================ cuBLAS -> hipBLAS / hipBLASLt

# hipBLASLt names (HIP side of CUBLASLT_* / cublasLt*), first ROCm release.
HIPBLASLT = words('''
5.5: EPILOGUE_BIAS EPILOGUE_DEFAULT EPILOGUE_GELU EPILOGUE_GELU_BIAS EPILOGUE_RELU EPILOGUE_RELU_BIAS
     MATMUL_DESC_BIAS_DATA_TYPE MATMUL_DESC_BIAS_POINTER MATMUL_DESC_D_SCALE_POINTER MATMUL_DESC_EPILOGUE
     MATMUL_DESC_TRANSA MATMUL_DESC_TRANSB MATMUL_PREF_MAX_WORKSPACE_BYTES MATMUL_PREF_SEARCH_MODE
     MATRIX_LAYOUT_BATCH_COUNT MATRIX_LAYOUT_STRIDED_BATCH_OFFSET
     Epilogue_t Handle_t MatmulAlgo_t MatmulDescAttributes_t MatmulDescOpaque_t MatmulDesc_t
     MatmulHeuristicResult_t MatmulPreferenceAttributes_t MatmulPreferenceOpaque_t MatmulPreference_t
     MatrixLayoutAttribute_t MatrixLayoutOpaque_t MatrixLayout_t
     Create Destroy Matmul MatmulAlgoGetHeuristic MatmulDescCreate MatmulDescDestroy MatmulDescGetAttribute
     MatmulDescSetAttribute MatmulPreferenceCreate MatmulPreferenceDestroy MatmulPreferenceGetAttribute
     MatmulPreferenceSetAttribute MatrixLayoutCreate MatrixLayoutDestroy MatrixLayoutGetAttribute
     MatrixLayoutSetAttribute;
5.7: EPILOGUE_BGRADA EPILOGUE_BGRADB EPILOGUE_DGELU EPILOGUE_DGELU_BGRAD EPILOGUE_GELU_AUX
     EPILOGUE_GELU_AUX_BIAS MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE MATMUL_DESC_EPILOGUE_AUX_LD
     MATMUL_DESC_EPILOGUE_AUX_POINTER;
6.0: MATMUL_DESC_A_SCALE_POINTER MATMUL_DESC_B_SCALE_POINTER MATMUL_DESC_C_SCALE_POINTER
     MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER MATMUL_DESC_POINTER_MODE MATRIX_LAYOUT_COLS MATRIX_LAYOUT_LD
     MATRIX_LAYOUT_ORDER MATRIX_LAYOUT_ROWS MATRIX_LAYOUT_TYPE MATRIX_TRANSFORM_DESC_POINTER_MODE
     MATRIX_TRANSFORM_DESC_SCALE_TYPE MATRIX_TRANSFORM_DESC_TRANSA MATRIX_TRANSFORM_DESC_TRANSB
     ORDER_COL ORDER_ROW POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST POINTER_MODE_HOST
     MatrixTransformDescAttributes_t MatrixTransformDescOpaque_t MatrixTransformDesc_t Order_t PointerMode_t
     MatrixTransform MatrixTransformDescCreate MatrixTransformDescDestroy MatrixTransformDescGetAttribute
     MatrixTransformDescSetAttribute;
6.1: POINTER_MODE_DEVICE;
6.2: MATMUL_DESC_AMAX_D_POINTER;
7.0: MATMUL_DESC_A_SCALE_MODE MATMUL_DESC_B_SCALE_MODE MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE
     MATMUL_MATRIX_SCALE_BLK128x128_32F MATMUL_MATRIX_SCALE_END MATMUL_MATRIX_SCALE_OUTER_VEC_32F
     MATMUL_MATRIX_SCALE_SCALAR_32F MATMUL_MATRIX_SCALE_VEC128_32F MATMUL_MATRIX_SCALE_VEC16_UE4M3
     MATMUL_MATRIX_SCALE_VEC32_UE8M0 MatmulMatrixScale_t;
7.1: EPILOGUE_RELU_AUX EPILOGUE_RELU_AUX_BIAS
''')

BLAS_L1 = 'asum axpy copy dot dotc dotu nrm2 rot rotm scal swap amax amin'.split()
BLAS_L2 = ('gbmv gemv ger gerc geru hbmv hemv her her2 hpmv hpr hpr2 sbmv spmv spr spr2 symv syr syr2 '
           'tbmv tbsv tpmv tpsv trmv trsv').split()


def blas_core(x):
    """'Sgemm_64' -> ('gemm', '_64');  'Icamax' -> 'amax'."""
    x64 = x.endswith('_64')
    base = x[:-3] if x64 else x
    m = re.match(r'(?:I[sdcz]|[SDCZH][sdcz]?|[SDCZH])([a-z0-9]+)(.*)$', base)
    return (m.group(1) + m.group(2) if m else base), x64


# hipBLAS names added after 5.2 and present by 6.2 (hip-python starts at 6.2)
def hipblas_since(hip):
    if hip.startswith('HIPBLAS_COMPUTE_') or hip == 'hipblasComputeType_t':
        return '6.0'
    if hip in ('hipblasMath_t', 'hipblasGetMathMode', 'hipblasSetMathMode') or hip.endswith('_MATH') \
            or hip == 'HIPBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION':
        return '6.1'
    if re.match(r'hipblas[SDCZ]gelsBatched$', hip):
        return '5.4'
    if hip.endswith('_64'):
        core, _ = blas_core(hip[len('hipblas'):])
        if core.endswith('Ex'):
            return '6.2'
        if core in BLAS_L1 or core in ('rotg',):
            return '6.1'
        return '6.2'
    return None


def cublas_sources():
    d = scan_headers(cuda_inc('cublas_api.h', 'cublas_v2.h', 'cublas.h', 'cublasLt.h', 'cublasXt.h'))
    for k, v in scan_headers(old_inc('nvidia_cublas_cu12', 'cublas_api.h', 'cublas_v2.h', 'cublasLt.h')).items():
        d.setdefault(k, v + ('old',))
    names = {}
    for k, v in d.items():
        if not re.match(r'(cublas|CUBLAS)', k) or skip_internal(k):
            continue
        kind = v[0]
        if kind == 'macro' and re.match(r'cublas\w+$', v[1] or ''):
            kind = 'function'        # cublasSgemm -> cublasSgemm_v2
        names[k] = (kind, len(v) > 2)
    return names


def cublas_hip_name(c):
    if c.startswith('cublasLt'):
        return 'hipblasLt' + c[len('cublasLt'):]
    if c.startswith('CUBLASLT_'):
        return 'HIPBLASLT_' + c[len('CUBLASLT_'):]
    if c.startswith('CUBLAS_'):
        return 'HIPBLAS_' + c[len('CUBLAS_'):]
    x = c[len('cublas'):]
    x = x.replace('_v2_64', '_64')
    if x.endswith('_v2'):
        x = x[:-3]
    return 'hipblas' + x


CUBLAS_EXC = {
    'cublasStatus': 'hipblasStatus_t',
    'CUBLAS_GEMM_DFALT': 'HIPBLAS_GEMM_DEFAULT',
    'CUBLAS_OP_HERMITAN': 'HIPBLAS_OP_C',
    'cublasGetStatusString': 'hipblasStatusToString',
    'cublasDataType_t': 'hipDataType',
    'CUBLAS_VER_MAJOR': 'hipblasVersionMajor',
    'CUBLAS_VER_MINOR': 'hipblasVersionMinor',
    'CUBLAS_VER_PATCH': 'hipblasVersionPatch',
}

CUBLAS_ALT = {
    r'^cublas[SC]gemmEx(_64)?$': 'hipblasGemmEx',
    r'gemm3m': 'the plain hipblas[CZ]gemm / hipblas[CZ]gemmBatched (no 3M algorithm on AMD)',
    r'GroupedBatched': 'one hipblasGemmBatchedEx / hipblas?gemmBatched call per group, or hipBLASLt grouped GEMM',
    r'^cublas(Asum|Copy|Swap|Iamax|Iamin|Rotg|Rotm|Rotmg)Ex': 'the typed hipblas functions (hipblasSasum, hipblasScopy, ...)',
    r'^cublasC(herk|syrk)(3m)?Ex': 'hipblasCherk / hipblasCsyrk with converted inputs',
    r'matinvBatched$': 'hipblas?getrfBatched followed by hipblas?getriBatched',
    r'^cublasAlloc$': 'hipMalloc',
    r'^cublasFree$': 'hipFree',
    r'^cublasSetKernelStream$': 'hipblasSetStream',
    r'^cublas(Init|Shutdown)$': 'hipblasCreate / hipblasDestroy (the handle-based v2 API)',
    r'^cublasGetError$': 'the hipblasStatus_t returned by each call',
    r'^cublasGetVersion': 'the hipblasVersionMajor / hipblasVersionMinor / hipblasVersionPatch macros',
    r'^cublasGetProperty$': 'the hipblasVersionMajor / hipblasVersionMinor / hipblasVersionPatch macros',
    r'^cublasGetCudartVersion$': 'hipRuntimeGetVersion',
    r'Logger|LogCallback': 'the HIPBLAS_LAYER / ROCBLAS_LAYER logging environment variables',
    r'^cublasXt': 'no multi-GPU Xt API in hipBLAS: split the work per device and call hipblas on each',
    r'^cublasLtMatmulAlgo(Init|Check|GetIds|ConfigSetAttribute|ConfigGetAttribute|CapGetAttribute)$':
        'hipblasLtMatmulAlgoGetHeuristic (hipBLASLt selects algorithms by heuristic only)',
    r'^CUBLAS_GEMM_(DEFAULT|DFALT)_TENSOR_OP$': 'HIPBLAS_GEMM_DEFAULT',
    r'^CUBLAS_GEMM_ALGO\d+(_TENSOR_OP)?$': 'HIPBLAS_GEMM_DEFAULT (hipBLAS has a single default algorithm)',
    r'^CUBLAS_STATUS_LICENSE_ERROR$': 'HIPBLAS_STATUS_UNKNOWN',
    r'^CUBLAS_VERSION$': 'hipblasVersionMajor * 10000 + hipblasVersionMinor * 100 + hipblasVersionPatch (hipBLAS versions, not cuBLAS ones)',
    r'^cublasSetSmCountTarget|^cublasGetSmCountTarget': 'no equivalent; rocBLAS/hipBLAS use the whole device',
    r'^cublasMigrateComputeType$': 'pass a hipblasComputeType_t directly',
    r'^cublas(Lt)?GetStatus(Name|String)$': 'hipblasStatusToString (returns a description, not the enumerator name)',
    r'^cublas(HSH|HSS|TSS|TST)gemv': 'rocblas_hshgemv_batched and friends (use --blas rocblas), or convert to float and call hipblasSgemvBatched',
    r'^cublasLt\w+Init(_internal)?$': 'the matching hipblasLt*Create function (heap-allocated descriptors)',
    r'^cublasUint8gemmBias$': 'hipblasGemmEx with HIP_R_8U inputs and a separate bias step',
    r'tpttr|trttp': 'a small copy kernel (no packed/triangular conversion in hipBLAS)',
}


def alt_for(table, name):
    for pat, alt in table.items():
        if re.search(pat, name):
            return alt
    return None


def group_cublas(c, kind):
    if c.startswith('cublasXt'):
        return 'cuBLASXt (multi-GPU) API'
    if c.startswith(('cublasLt', 'CUBLASLT_')):
        return 'cuBLASLt: ' + {'enum': 'enumerators', 'macro': 'macros', 'type': 'types'}.get(kind, 'functions')
    if kind in ('enum', 'macro'):
        return 'cuBLAS enumerators and macros'
    if kind == 'type':
        return 'cuBLAS types'
    core, _ = blas_core(c[len('cublas'):].replace('_v2', ''))
    x = c[len('cublas'):].replace('_v2', '').replace('_64', '')
    if re.match(r'(Create|Destroy|Get|Set|Init|Shutdown|Alloc|Free|Xerbla|Migrate|LogCallback|Logger)', x):
        return 'cuBLAS helper functions'
    if 'Ex' in x or 'Batched' in x or re.match(r'[SDCZH](geam|dgmm|tpttr|trttp|matinv)', x) or x in ('Hgemm',):
        return 'cuBLAS BLAS-like extensions, batched and Ex functions'
    if core in BLAS_L1 or core in ('rotg', 'rotmg') or re.match(r'I[sdcz]am', x):
        return 'cuBLAS Level-1'
    if core in BLAS_L2:
        return 'cuBLAS Level-2'
    return 'cuBLAS Level-3'


def hipblas_avail():
    sets = hp_sets('chipblas')
    lt = {}
    for k, v in HIPBLASLT.items():
        enum_like = re.fullmatch(r'[A-Z0-9_x]+', k) is not None
        lt[('HIPBLASLT_' if enum_like else 'hipblasLt') + k] = v
    extra = dict(lt)
    extra['hipblasStatusToString'] = BASE
    extra.update({'hipblasVersionMajor': BASE, 'hipblasVersionMinor': BASE, 'hipblasVersionPatch': BASE,
                  'hipDataType': BASE})
    return Avail((), sets, extra, first_is_base=True), sets


def complex_change_note(hip, sets):
    """hipBLAS 6.x had hipblasX (hipblasComplex) and hipblasX_v2 (hipComplex); 7.0 kept only hipComplex."""
    for v, s in sets:
        if hip + '_v2' in s:
            if re.search(r'Ex(_64)?$', hip):
                return ('ROCm 7.0 changed the signature to cuBLAS-like hipDataType / hipblasComputeType_t; '
                        'on ROCm 6.x define HIPBLAS_V2 (or call ' + hip + '_v2) for that form')
            return ('ROCm 7.0 changed the complex arguments to hipComplex / hipDoubleComplex; on ROCm 6.x '
                    'define HIPBLAS_V2 (or call ' + hip + '_v2), older releases take hipblasComplex')
    return None


def build_cublas():
    av, sets = hipblas_avail()
    t = Table('cublas', 'cuBLAS and cuBLASLt API', 'hipBLAS / hipBLASLt', BASE, CUBLAS_HEADER_COMMENT)
    for c, (kind, old) in sorted(cublas_sources().items()):
        kind = kind_of(kind)
        g = group_cublas(c, kind)
        hip = CUBLAS_EXC.get(c, cublas_hip_name(c))
        if c.startswith('cublasXt'):
            t.add(g, c, kind, status='unsupported', alt=alt_for(CUBLAS_ALT, c))
            continue
        first = av.first(hip)
        if first is None:
            t.add(g, c, kind, status='unsupported', alt=alt_for(CUBLAS_ALT, c),
                  note='removed from cuBLAS in CUDA 13' if old else None)
            continue
        since = vmax(first, hipblas_since(hip))
        notes = []
        status = 'supported'
        rem = av.removed(hip)
        if rem:
            status = 'deprecated'
            notes.append('removed from hipBLAS in ROCm %s' % rem)
        cn = complex_change_note(hip, sets)
        if cn:
            notes.append(cn)
        if c.startswith(('cublasLt', 'CUBLASLT_')):
            notes.append('hipBLASLt (hipblaslt/hipblaslt.h); it runs only on newer AMD GPUs (MI200/MI300 class and later), check its support matrix')
        if c in ('cublasDataType_t',):
            notes.append('hipDataType comes from hip/library_types.h; hipBLAS before ROCm 6.0 used hipblasDatatype_t (HIPBLAS_R_32F, ...) in its Ex functions unless HIPBLAS_V2 was defined')
        if c in ('cublasGetStatusString',):
            notes.append('same purpose: returns a string for a status code')
        if c.startswith('CUBLAS_VER_'):
            notes.append('hipBLAS library version, not the cuBLAS version')
        if re.match(r'(cublasFillMode_t|cublasOperation_t|cublasSideMode_t|cublasDiagType_t|CUBLAS_(FILL_MODE|OP|SIDE|DIAG)_)', c):
            notes.append('in cuSOLVER calls use the hipSOLVER spelling (hipsolverFillMode_t, HIPSOLVER_FILL_MODE_LOWER, HIPSOLVER_OP_N, ...): before ROCm 6.0 hipSOLVER had its own enums and hipsolver.h does not declare the hipBLAS ones')
        if c in ('CUBLAS_GEMM_DFALT', 'CUBLAS_OP_HERMITAN', 'cublasStatus'):
            notes.append('older cuBLAS spelling')
        if old:
            notes.append('removed from cuBLAS in CUDA 13')
        t.add(g, c, kind, hip=hip, status=status, since=since, note='; '.join(notes) or None)
    t.header('cublas_v2.h', 'hipblas/hipblas.h', 'hipblas.h')
    t.header('cublas_api.h', 'hipblas/hipblas.h', 'hipblas.h')
    t.header('cublas.h', 'hipblas/hipblas.h', 'hipblas.h',
             comment='legacy cuBLAS API: hipBLAS only has the handle-based (v2) form, port calls to it')
    t.header('cublasLt.h', 'hipblaslt/hipblaslt.h', comment='hipBLASLt ships from ROCm 5.5 on (no flat-layout header)')
    t.header('cublasXt.h', 'hipblas/hipblas.h', 'hipblas.h', comment='no cublasXt counterpart: every cublasXt* name is unsupported')
    return t


CUBLAS_HEADER_COMMENT = '''
cuBLAS / cuBLASLt -> hipBLAS / hipBLASLt.
CUDA names: cublas_api.h, cublas_v2.h, cublas.h, cublasLt.h, cublasXt.h of CUDA 13.x (plus a few
names CUDA 12 still had).  HIP names: the hipBLAS declarations of ROCm 6.2 .. 7.2; hipBLASLt names
and the releases of names added between 5.2 and 6.2 were checked against HIPIFY's tables.
since: first ROCm release that has the name, floored at 5.2 ("5.2" = 5.2 or earlier).
cublasX, cublasX_v2 -> hipblasX;  cublasX_64, cublasX_v2_64 -> hipblasX_64 (64-bit sizes).
The enumerators CUDA_R_32F etc. (library_types.h) belong to the runtime tables (HIP_R_32F).
Debian packages no hipBLAS; ROCm installs hipblas/hipblas.h (flat hipblas.h in releases < 5.2 /
deprecated wrappers until 6.x).'''


# ================================================================ cuBLAS -> rocBLAS

def snake(x):
    m = re.match(r'([A-Z]+)(.*)$', x)
    if not m:
        return x
    head, rest = m.group(1), m.group(2)
    if len(head) > 1 and rest and rest[0].islower():
        # 'HSHgemv' stays one word; 'GemmEx' -> head 'G'
        pass
    rest = re.sub(r'([A-Z])', lambda mm: '_' + mm.group(1).lower(), rest)
    return head.lower() + rest


ROCBLAS_EXC = {
    'cublasHandle_t': 'rocblas_handle', 'cublasContext': '_rocblas_handle',
    'cublasStatus_t': 'rocblas_status', 'cublasStatus': 'rocblas_status',
    'cublasOperation_t': 'rocblas_operation', 'cublasFillMode_t': 'rocblas_fill',
    'cublasDiagType_t': 'rocblas_diagonal', 'cublasSideMode_t': 'rocblas_side',
    'cublasPointerMode_t': 'rocblas_pointer_mode', 'cublasAtomicsMode_t': 'rocblas_atomics_mode',
    'cublasGemmAlgo_t': 'rocblas_gemm_algo', 'cublasMath_t': 'rocblas_math_mode',
    'cublasComputeType_t': 'rocblas_computetype', 'cublasDataType_t': 'rocblas_datatype',
    'CUBLAS_OP_N': 'rocblas_operation_none', 'CUBLAS_OP_T': 'rocblas_operation_transpose',
    'CUBLAS_OP_C': 'rocblas_operation_conjugate_transpose',
    'CUBLAS_OP_HERMITAN': 'rocblas_operation_conjugate_transpose',
    'CUBLAS_FILL_MODE_LOWER': 'rocblas_fill_lower', 'CUBLAS_FILL_MODE_UPPER': 'rocblas_fill_upper',
    'CUBLAS_FILL_MODE_FULL': 'rocblas_fill_full',
    'CUBLAS_DIAG_UNIT': 'rocblas_diagonal_unit', 'CUBLAS_DIAG_NON_UNIT': 'rocblas_diagonal_non_unit',
    'CUBLAS_SIDE_LEFT': 'rocblas_side_left', 'CUBLAS_SIDE_RIGHT': 'rocblas_side_right',
    'CUBLAS_POINTER_MODE_HOST': 'rocblas_pointer_mode_host', 'CUBLAS_POINTER_MODE_DEVICE': 'rocblas_pointer_mode_device',
    'CUBLAS_ATOMICS_ALLOWED': 'rocblas_atomics_allowed', 'CUBLAS_ATOMICS_NOT_ALLOWED': 'rocblas_atomics_not_allowed',
    'CUBLAS_GEMM_DEFAULT': 'rocblas_gemm_algo_standard', 'CUBLAS_GEMM_DFALT': 'rocblas_gemm_algo_standard',
    'CUBLAS_DEFAULT_MATH': 'rocblas_default_math', 'CUBLAS_COMPUTE_32F': 'rocblas_compute_type_f32',
    'CUBLAS_STATUS_SUCCESS': 'rocblas_status_success',
    'CUBLAS_STATUS_NOT_INITIALIZED': 'rocblas_status_invalid_handle',
    'CUBLAS_STATUS_ALLOC_FAILED': 'rocblas_status_memory_error',
    'CUBLAS_STATUS_INVALID_VALUE': 'rocblas_status_invalid_value',
    'CUBLAS_STATUS_ARCH_MISMATCH': 'rocblas_status_arch_mismatch',
    'CUBLAS_STATUS_MAPPING_ERROR': 'rocblas_status_memory_error',
    'CUBLAS_STATUS_EXECUTION_FAILED': 'rocblas_status_internal_error',
    'CUBLAS_STATUS_INTERNAL_ERROR': 'rocblas_status_internal_error',
    'CUBLAS_STATUS_NOT_SUPPORTED': 'rocblas_status_not_implemented',
    'cublasCreate': 'rocblas_create_handle', 'cublasCreate_v2': 'rocblas_create_handle',
    'cublasDestroy': 'rocblas_destroy_handle', 'cublasDestroy_v2': 'rocblas_destroy_handle',
    'cublasGetStatusString': 'rocblas_status_to_string', 'cublasInit': 'rocblas_initialize',
}
ROCBLAS_SINCE = {
    'rocblas_math_mode': '5.7', 'rocblas_computetype': '5.7', 'rocblas_default_math': '5.7',
    'rocblas_compute_type_f32': '5.7', 'rocblas_status_arch_mismatch': '5.7',
    'rocblas_get_math_mode': '5.7', 'rocblas_set_math_mode': '5.7',
}
ROCBLAS_APPROX = {'CUBLAS_STATUS_NOT_INITIALIZED', 'CUBLAS_STATUS_MAPPING_ERROR', 'CUBLAS_STATUS_EXECUTION_FAILED',
                  'CUBLAS_STATUS_NOT_SUPPORTED', 'CUBLAS_STATUS_ALLOC_FAILED'}
# cuBLAS names whose hipBLAS twin exists but that rocBLAS lacks (they are rocSOLVER / hipBLAS-only)
ROCBLAS_NONE = {
    r'(getrf|getri|getrs|geqrf|gels)Batched$': 'rocsolver_<t>getrf_batched etc. (rocSOLVER, takes a rocblas_handle)',
    r'^cublasGemm(Batched|StridedBatched)?Ex(_64)$': 'rocblas_gemm_ex family (32-bit sizes only)',
    r'^cublasSetWorkspace': 'rocblas_set_workspace (rocBLAS manages its own device workspace; see the rocBLAS workspace docs)',
}
ROCBLAS_ONLY = words('6.0: HSHgemvBatched HSHgemvStridedBatched HSSgemvBatched HSSgemvStridedBatched '
                     'TSSgemvBatched TSSgemvStridedBatched TSTgemvBatched TSTgemvStridedBatched')


def rocblas_name(c):
    if c in ROCBLAS_EXC:
        return ROCBLAS_EXC[c]
    if not c.startswith('cublas') or c.startswith(('cublasLt', 'cublasXt')):
        return None
    x = c[len('cublas'):]
    x64 = x.endswith('_64')
    x = x.replace('_v2_64', '').replace('_64', '')
    if x.endswith('_v2'):
        x = x[:-3]
    return 'rocblas_' + snake(x) + ('_64' if x64 else '')


def rocblas_since(c, roc):
    if roc in ROCBLAS_SINCE:
        return ROCBLAS_SINCE[roc]
    x = c[len('cublas'):].replace('_v2', '')
    base = x.replace('_64', '')
    if base in ROCBLAS_ONLY:
        return '6.2' if x.endswith('_64') else '6.0'
    if not x.endswith('_64'):
        return BASE
    core, _ = blas_core(x)
    if core.endswith('Ex'):
        return '6.1'
    if core in BLAS_L1 or core == 'rotg':
        return '6.1'
    if core in BLAS_L2 or core in ('gemvBatched', 'gemvStridedBatched', 'trsm', 'trsmBatched'):
        return '6.2'
    return '6.3'


def build_rocblas(cublas_table):
    t = Table('rocblas', 'cuBLAS API (ported to rocBLAS, --blas rocblas)', 'rocBLAS', BASE, ROCBLAS_HEADER_COMMENT)
    for c, e in sorted(cublas_table.seen.items()):
        kind = e['kind']
        g = group_cublas(c, kind)
        if c.startswith(('cublasLt', 'CUBLASLT_')):
            t.add(g, c, kind, status='unsupported', alt='hipBLASLt (use the hipBLAS port: --blas hipblas)')
            continue
        roc = rocblas_name(c)
        x = c[len('cublas'):].replace('_v2', '').replace('_64', '') if c.startswith('cublas') else ''
        hip_ok = e.get('status', 'supported') != 'unsupported' or x in ROCBLAS_ONLY
        none = [v for p, v in ROCBLAS_NONE.items() if re.search(p, c)]
        if roc is None or not hip_ok or (none and c not in ROCBLAS_EXC) or (c.startswith('CUBLAS_') and c not in ROCBLAS_EXC):
            alt = none[0] if none else alt_for(CUBLAS_ALT, c)
            if c.startswith('CUBLAS_COMPUTE_'):
                alt = 'rocblas_compute_type_f32 (the only rocBLAS compute type)'
            if c == 'CUBLAS_TF32_TENSOR_OP_MATH':
                alt = 'rocblas_xf32_xdl_math_op (XF32, only on gfx94x)'
            t.add(g, c, kind, status='unsupported', alt=alt)
            continue
        notes = []
        if c in ROCBLAS_APPROX:
            notes.append('approximate: no exact rocBLAS status; test for rocblas_status_success rather than for this code')
        if re.search(r'Gemm(Batched|StridedBatched)?Ex$', c):
            notes.append('rocblas_gemm_ex* take an extra output matrix D (pass C twice for in-place), a rocblas_datatype compute type, rocblas_gemm_algo, solution index and flags')
        elif re.search(r'Ex(_64)?$', c):
            notes.append('rocBLAS *_ex functions take rocblas_datatype arguments instead of cudaDataType')
        if re.match(r'cublas[SDCZ]trmm', c):
            notes.append('rocBLAS >= 6.0 trmm is out-of-place (A, B -> C) like cuBLAS; before 6.0 it overwrote B')
        if re.match(r'cublas([CZ][a-z]|I[cz]am|Sc|Dz|Cs|Zd)', c) and kind == 'function' and not c.startswith('cublasCreate'):
            notes.append('complex arguments are rocblas_float_complex / rocblas_double_complex (layout-compatible with cuComplex; cast pointers)')
        if c in ('cublasGetStatusString',):
            notes.append('same purpose: string for a status code')
        if c in ('cublasInit',):
            notes.append('optional: rocblas_initialize only preloads kernels to avoid first-call latency')
        if c in ('cublasCreate', 'cublasCreate_v2'):
            notes.append('rocBLAS calls return rocblas_status, not cublasStatus_t')
        if c.startswith(('cublasSetVector', 'cublasGetVector', 'cublasSetMatrix', 'cublasGetMatrix')):
            notes.append('same argument order; returns rocblas_status')
        t.add(g, c, kind, hip=roc, since=rocblas_since(c, roc) if c.startswith('cublas') else ROCBLAS_SINCE.get(roc, BASE),
              note='; '.join(notes) or None)
    t.header('cublas_v2.h', 'rocblas/rocblas.h', 'rocblas.h')
    t.header('cublas_api.h', 'rocblas/rocblas.h', 'rocblas.h')
    t.header('cublas.h', 'rocblas/rocblas.h', 'rocblas.h', comment='legacy cuBLAS API: port to the handle-based form first')
    return t


ROCBLAS_HEADER_COMMENT = '''
cuBLAS -> rocBLAS, the table used with `--blas rocblas` (the default port is hipBLAS, cublas.toml).
Same CUDA names as cublas.toml; rocBLAS names follow its snake_case scheme
(cublasSgemmStridedBatched -> rocblas_sgemm_strided_batched, *_64 -> rocblas_*_64).
Semantics that differ from cuBLAS, noted per entry where it matters:
- every call returns rocblas_status; statuses do not map one to one (see CUBLAS_STATUS_*);
- complex data is rocblas_float_complex / rocblas_double_complex;
- the pointer mode defaults to host, as in cuBLAS; rocblas_set_pointer_mode works the same way;
- rocblas_gemm_ex and friends have a different argument list (extra D matrix, algo, flags).
Names hipBLAS has but rocBLAS lacks (batched LAPACK-like getrf/getrs/..., hipBLASLt) are unsupported
here with the rocSOLVER / hipBLAS alternative.  since: first ROCm release (floored at 5.2).'''


# ================================================================ generic prefix-rename families

def prefix_map(c, pairs):
    for a, b in pairs:
        if c.startswith(a):
            return b + c[len(a):]
    return None


def build_simple(family, title, library, header_comment, cuda_names, pairs, avail, exc=None, alts=None,
                 group_fn=None, note_fn=None, status_fn=None, since_fn=None, min_since=None):
    t = Table(family, title, library, BASE, header_comment)
    exc = exc or {}
    for c, kind in sorted(cuda_names.items()):
        g = group_fn(c, kind) if group_fn else kind
        hip = exc.get(c, prefix_map(c, pairs))
        first = avail.first(hip) if hip else None
        if first is None:
            t.add(g, c, kind, status='unsupported', alt=alt_for(alts or {}, c),
                  note=note_fn(c, None, kind) if note_fn else None)
            continue
        since = vmax(first, since_fn(hip) if since_fn else None, min_since)
        status = status_fn(c, hip) if status_fn else 'supported'
        notes = []
        rem = avail.removed(hip)
        if rem:
            status = 'deprecated'
            notes.append('removed from %s in ROCm %s' % (library, rem))
        if note_fn:
            n = note_fn(c, hip, kind)
            if n:
                notes.append(n)
        t.add(g, c, kind, hip=hip, status=status, since=since, note='; '.join(notes) or None)
    return t


def cuda_names_from(paths, pattern, extra_kinds=None):
    d = scan_headers(paths)
    out = {}
    for k, v in d.items():
        if re.match(pattern, k) and not skip_internal(k):
            kind = v[0]
            if kind == 'macro' and re.match(ID + r'$', v[1] or '') and not v[1].isupper():
                kind = 'function'
            out[k] = kind_of(kind)
    if extra_kinds:
        out.update(extra_kinds)
    return out


# ================================================================ cuRAND -> hipRAND

HIPRAND_SINCE = words('''
5.5: hiprandGenerateLongLong;
6.0: HIPRAND_DIRECTION_VECTORS_32_JOEKUO6 HIPRAND_DIRECTION_VECTORS_64_JOEKUO6
     HIPRAND_SCRAMBLED_DIRECTION_VECTORS_32_JOEKUO6 HIPRAND_SCRAMBLED_DIRECTION_VECTORS_64_JOEKUO6
     hiprandDirectionVectorSet_t hiprandDirectionVectors64_t hiprandGetDirectionVectors32
     hiprandGetDirectionVectors64 hiprandGetScrambleConstants32 hiprandGetScrambleConstants64;
6.2: HIPRAND_ORDERING_PSEUDO_BEST HIPRAND_ORDERING_PSEUDO_DEFAULT HIPRAND_ORDERING_PSEUDO_DYNAMIC
     HIPRAND_ORDERING_PSEUDO_LEGACY HIPRAND_ORDERING_PSEUDO_SEEDED HIPRAND_ORDERING_QUASI_DEFAULT
     hiprandOrdering hiprandOrdering_t hiprandSetGeneratorOrdering
     hiprandStateScrambledSobol32 hiprandStateScrambledSobol32_t hiprandStateScrambledSobol64
     hiprandStateScrambledSobol64_t hiprandStateSobol64 hiprandStateSobol64_t
''')


def build_curand():
    deb = scan_headers(glob.glob('/usr/include/hiprand/*.h'))
    sets = hp_sets('chiprand')
    av = Avail(set(deb), sets, HIPRAND_SINCE)
    paths = cuda_inc('curand*.h')
    names = cuda_names_from(paths, r'(curand|CURAND_|__curand|skipahead|mtgp32|MTGP|precalc|scrambleConst)')
    for k in list(names):
        if re.match(r'(MTGP|mtgp32_|MTGPDC)', k) and k not in ('mtgp32_kernel_params_t', 'mtgp32dc_params_fast_11213'):
            del names[k]
        elif re.match(r'(precalc|scrambleConst)', k):
            del names[k]
    names['mtgp32dc_params_fast_11213'] = 'type'
    names['mtgp32_kernel_params'] = 'type'
    # device functions: keep the public device API, drop the headers' internal helpers
    public_dev = (r'^(curand|curand4|curand_init|curand_(uniform|normal|log_normal)\w*|curand_poisson4?|'
                  r'curand_discrete4?|curand_mtgp32_(single|single_specific|specific)|curand_Philox4x32_10|'
                  r'__curand_umul|skipahead\w*)$')
    for k in list(names):
        if re.match(r'(curand_|curand\d?$|__curand|skipahead|_curand)', k) and names[k] in ('function', 'macro', 'device'):
            if re.match(public_dev, k):
                names[k] = 'device'
            else:
                del names[k]
        elif names[k] == 'macro' and not re.match(r'CURAND_VER', k) or re.search(r'QUALIFIERS$', k):
            del names[k]
    exc = {'curandDirectionVectorSet': 'hiprandDirectionVectorSet_t', 'curandRngType': 'hiprandRngType_t',
           'skipahead': 'skipahead', 'skipahead_sequence': 'skipahead_sequence',
           'skipahead_subsequence': 'skipahead_subsequence',
           'mtgp32_kernel_params_t': 'mtgp32_kernel_params_t', 'mtgp32dc_params_fast_11213': 'mtgp32dc_params_fast_11213',
           'CURAND_VERSION': 'HIPRAND_VERSION', 'mtgp32_kernel_params': 'mtgp32_kernel_params_t'}
    av.base.add('mtgp32dc_params_fast_11213')   # rocrand/rocrand_mtgp32_11213.h, included by hiprand_mtgp32_host.h
    pairs = [('curand_', 'hiprand_'), ('curand', 'hiprand'), ('CURAND_', 'HIPRAND_')]
    alts = {r'^curandGetProperty$': 'hiprandGetVersion',
            r'^curand_mtgp32_(single|specific)': 'hiprand(&state) / hiprand_uniform(&state) on hiprandStateMtgp32_t',
            r'Distribution(M2)?Shift|Histogram|curandMethod|CURAND_(3RD|BINARY_SEARCH|CHOOSE_BEST|DEFINITION|DEVICE_API|DISCRETE_GAUSS|FAST_REJECTION|HITR|ITR|KNUTH|M1|M2|POISSON|REJECTION)$':
                'internal cuRAND distribution machinery: use hiprand_poisson / hiprandCreatePoissonDistribution',
            r'^curand_Philox4x32_10$': 'hiprand4(&state) on hiprandStatePhilox4_32_10_t',
            r'^__curand_umul$': '__umulhi',
            r'^CURAND_VER_': 'HIPRAND_VERSION (hipRAND version: major * 100000 + minor * 100 + patch)'}

    def group(c, kind):
        if kind == 'device' or c.startswith(('curandState', 'mtgp32')):
            return 'device API (curand_kernel.h -> hiprand/hiprand_kernel.h)'
        if kind in ('enum', 'macro'):
            return 'host API: enumerators and macros'
        if kind == 'type':
            return 'host API: types'
        return 'host API: functions'

    def note(c, hip, kind):
        if hip is None:
            return None
        if c in ('curandState', 'curandState_t'):
            return 'hiprandState is XORWOW, like curandState'
        if c.startswith('curandStateMtgp32') or c.startswith('curandMakeMTGP32'):
            return 'MTGP32 uses rocRAND parameter tables; hiprandMakeMTGP32KernelState takes the same arguments'
        if c == 'curandGenerateSeeds':
            return 'no-op for most rocRAND generators'
        if c == 'CURAND_VERSION':
            return "hipRAND's own version number, not cuRAND's"
        if c.startswith('skipahead'):
            return 'same name in hipRAND (global namespace)'
        if c == 'mtgp32dc_params_fast_11213':
            return 'an array declared by rocRAND (rocrand/rocrand_mtgp32_11213.h), not by the hipRAND headers: include that header'
        if c == 'mtgp32_kernel_params':
            return 'hipRAND has only the typedef mtgp32_kernel_params_t (no struct tag): write mtgp32_kernel_params_t, not struct mtgp32_kernel_params'
        return None
    t = build_simple('curand', 'cuRAND host and device API', 'hipRAND', CURAND_HEADER_COMMENT, names, pairs, av,
                     exc, alts, group, note)
    t.header('curand.h', 'hiprand/hiprand.h', 'hiprand.h')
    t.header('curand_kernel.h', 'hiprand/hiprand_kernel.h', 'hiprand_kernel.h')
    for h in ('curand_discrete.h', 'curand_discrete2.h', 'curand_globals.h', 'curand_lognormal.h',
              'curand_mrg32k3a.h', 'curand_mtgp32.h', 'curand_mtgp32_kernel.h', 'curand_normal.h',
              'curand_normal_static.h', 'curand_philox4x32_x.h', 'curand_poisson.h', 'curand_precalc.h',
              'curand_uniform.h'):
        t.header(h, 'hiprand/hiprand_kernel.h', 'hiprand_kernel.h')
    t.header('curand_mtgp32_host.h', 'hiprand/hiprand_mtgp32_host.h', 'hiprand_mtgp32_host.h')
    t.header('curand_mtgp32dc_p_11213.h', 'rocrand/rocrand_mtgp32_11213.h', 'rocrand_mtgp32_11213.h',
             comment='the MTGP32 11213 parameter table is rocRAND\'s (no hipRAND header includes it)')
    return t


CURAND_HEADER_COMMENT = '''
cuRAND (curand.h host API, curand_kernel.h device API) -> hipRAND.
CUDA names: the curand*.h headers of CUDA 13.x.  HIP names: Debian's libhiprand-dev 5.3.3
(/usr/include/hiprand/hiprand.h, hiprand_kernel.h, hiprand_kernel_hcc.h; installed under
/usr/include/hiprand/ only, there is no flat /usr/include/hiprand.h) and the hipRAND host
declarations of ROCm 6.2 .. 7.2; later device-API names checked against HIPIFY's tables.
since: first ROCm release, floored at 5.2; every name with since <= 5.2 is declared in the Debian
5.3.3 headers.  Device-side generators are rocRAND's: same algorithms and sequences as cuRAND
for XORWOW, MRG32k3a, Philox and Sobol, but do not expect bit-identical streams for every
generator / seeding mode.'''


# ================================================================ cuFFT -> hipFFT

HIPFFT_EXTRA = words('''
5.2: hipfftComplex hipfftDoubleComplex hipfftReal hipfftDoubleReal hipfftCallbackLoadC hipfftCallbackLoadD hipfftCallbackLoadR hipfftCallbackLoadZ hipfftCallbackStoreC
     hipfftCallbackStoreD hipfftCallbackStoreR hipfftCallbackStoreZ hipfftXtClearCallback hipfftXtSetCallback
     hipfftXtSetCallbackSharedSize hipfftXtCallbackType hipfftXtCallbackType_t
     HIPFFT_CB_LD_COMPLEX HIPFFT_CB_LD_COMPLEX_DOUBLE HIPFFT_CB_LD_REAL HIPFFT_CB_LD_REAL_DOUBLE
     HIPFFT_CB_ST_COMPLEX HIPFFT_CB_ST_COMPLEX_DOUBLE HIPFFT_CB_ST_REAL HIPFFT_CB_ST_REAL_DOUBLE HIPFFT_CB_UNDEFINED;
5.6: hipfftXtExec hipfftXtGetSizeMany hipfftXtMakePlanMany;
6.0: HIPFFT_COPY_DEVICE_TO_DEVICE HIPFFT_COPY_DEVICE_TO_HOST HIPFFT_COPY_HOST_TO_DEVICE HIPFFT_COPY_UNDEFINED
     HIPFFT_FORMAT_UNDEFINED HIPFFT_XT_FORMAT_1D_INPUT_SHUFFLED HIPFFT_XT_FORMAT_INPLACE
     HIPFFT_XT_FORMAT_INPLACE_SHUFFLED HIPFFT_XT_FORMAT_INPUT HIPFFT_XT_FORMAT_OUTPUT
     hipLibXtDesc hipLibXtDesc_t hipfftXtCopyType hipfftXtCopyType_t hipfftXtSubFormat hipfftXtSubFormat_t
     hipfftXtExecDescriptor hipfftXtExecDescriptorC2C hipfftXtExecDescriptorC2R hipfftXtExecDescriptorD2Z
     hipfftXtExecDescriptorR2C hipfftXtExecDescriptorZ2D hipfftXtExecDescriptorZ2Z hipfftXtFree hipfftXtMalloc
     hipfftXtMemcpy hipfftXtSetGPUs
''')


def build_cufft():
    sets = hp_sets('chipfft')
    av = Avail((), sets, HIPFFT_EXTRA, first_is_base=True)
    names = cuda_names_from(cuda_inc('cufft.h', 'cufftXt.h', 'cudalibxt.h'),
                            r'(cufft|CUFFT_|cudaLibXt|cudaXt|MAX_CUFFT|NVFFT_|CUDA_XT)')
    for k in list(names):
        if re.match(r'CUFFT_(VER_|VERSION|API|WINAPI|CB|INCLUDE)', k) and names[k] == 'macro' and not k.startswith('CUFFT_CB_'):
            if not k.startswith(('CUFFT_VER_', 'CUFFT_VERSION')):
                del names[k]
    exc = {'CUFFT_INVERSE': 'HIPFFT_BACKWARD', 'cudaLibXtDesc': 'hipLibXtDesc', 'cudaLibXtDesc_t': 'hipLibXtDesc_t',
           'cudaXtDesc': 'hipXtDesc', 'cudaXtDesc_t': 'hipXtDesc_t'}
    pairs = [('cufft', 'hipfft'), ('CUFFT_', 'HIPFFT_')]
    alts = {r'^cufftXtSetWorkArea$': 'hipfftSetWorkArea',
            r'WorkAreaPolicy|WORKAREA': 'hipfftSetAutoAllocation(plan, 0) + hipfftSetWorkArea',
            r'Compatibility|COMPATIBILITY': 'nothing: hipFFT always uses the native (non-FFTW-padded) layout',
            r'PlanProperty|NVFFT_PLAN_PROPERTY': 'no per-plan properties in hipFFT',
            r'cufftDevice|cufftDescription|CUFFT_DESC_|CUFFT_DEVICE_': 'no device (LTO) FFT API in hipFFT; rocFFT has no device callable FFTs',
            r'^CUFFT_VER_|^CUFFT_VERSION$': 'hipfftGetVersion (hipFFT library version)',
            r'QueryPlan|QUERY_': 'no plan queries in hipFFT',
            r'Distribution|DISTRIBUTED': 'no distributed (multi-process) hipFFT; use rocFFT MPI support',
            r'^cufftBox3d': 'no distributed (multi-process) hipFFT'}

    def group(c, kind):
        if 'Xt' in c or 'XT_' in c or 'cudaLibXt' in c or c.startswith('cudaXt'):
            return 'cufftXt (multi-GPU, callbacks, Xt exec)'
        return {'function': 'functions', 'type': 'types'}.get(kind, 'enumerators and macros')

    def note(c, hip, kind):
        if hip is None:
            return None
        if c == 'cufftHandle':
            return 'hipfftHandle is a pointer (hipfftHandle_t*), not an int: code that stores plans in int variables must change'
        if c == 'CUFFT_INVERSE':
            return 'same direction (+1), hipFFT calls it HIPFFT_BACKWARD'
        if 'Callback' in c or c.startswith('CUFFT_CB_'):
            return 'hipFFT callbacks need a rocFFT built with callback support and device function pointers obtained with hipMemcpyFromSymbol'
        if c.startswith(('cufftXt', 'cudaLibXt', 'CUFFT_XT_', 'CUFFT_COPY_', 'CUFFT_FORMAT')) and hip:
            return 'multi-GPU hipFFT: check which transforms rocFFT distributes'
        return None
    t = build_simple('cufft', 'cuFFT and cuFFTXt API', 'hipFFT', CUFFT_HEADER_COMMENT, names, pairs, av, exc, alts,
                     group, note)
    t.header('cufft.h', 'hipfft/hipfft.h', 'hipfft.h')
    t.header('cufftXt.h', 'hipfft/hipfftXt.h', 'hipfftXt.h')
    t.header('cudalibxt.h', 'hipfft/hipfftXt.h', 'hipfftXt.h')
    t.header('cufftw.h', 'hipfft/hipfftw.h', comment='hipFFTW (same fftw_* names) ships from ROCm 7.1; before that use FFTW on the host')
    return t


CUFFT_HEADER_COMMENT = '''
cuFFT / cuFFTXt -> hipFFT.
CUDA names: cufft.h, cufftXt.h, cudalibxt.h of CUDA 13.x.  HIP names: the hipFFT declarations of
ROCm 6.2 .. 7.2 (hipfft/hipfft.h); the hipfftXt.h names (callbacks, multi-GPU descriptors) and the
releases of names added after 5.2 were checked against HIPIFY's table.
since: first ROCm release, floored at 5.2.
The cuFFTW (fftw_*) names are the FFTW API itself and keep their names (header cufftw.h ->
hipfft/hipfftw.h, ROCm 7.1+).'''


# ================================================================ cuSPARSE -> hipSPARSE

HIPSPARSE_SINCE = words('''
6.0: hipsparseSpSV_solve hipsparseSpSM_solve;
5.4: HIPSPARSE_CSR2CSC_ALG1 HIPSPARSE_CSR2CSC_ALG2 hipsparseCsr2CscAlg_t hipsparseCsr2cscEx2
     hipsparseCsr2cscEx2_bufferSize HIPSPARSE_ORDER_COL;
5.6: HIPSPARSE_CSR2CSC_ALG_DEFAULT HIPSPARSE_SPGEMM_ALG1 HIPSPARSE_SPGEMM_ALG2 HIPSPARSE_SPGEMM_ALG3;
6.0: hipsparseGetErrorName hipsparseGetErrorString;
6.2: hipsparseCscGet hipsparseConstCscGet
''')
# hipSPARSE deprecations (HIP side), by the core name after the type letter
HIPSPARSE_DEPRECATED = [
    ('3.9', r'^hipsparse[SDCZ](axpyi|doti|dotci|gthr|gthrz|roti|sctr|csrmv|hybmv|csrmm2?|gemmi|csrgeam|csrgemm2?(_bufferSizeExt)?|csr2csc|csr2hyb|hyb2csr)$'
            r'|^hipsparseX(csrgeamNnz|csrgemmNnz|csrgemm2Nnz)$|^hipsparse(Create|Destroy)(HybMat|Csrgemm2Info)$'),
    ('5.6', r'^hipsparse[SDCZ](csrsv2_(analysis|bufferSize|solve)|csrsm2_(analysis|bufferSizeExt|solve)|csc2dense|csr2dense|dense2csc)$'
            r'|^hipsparseX(csrsv2|csrsm2)_zeroPivot$|^hipsparse(Create|Destroy)(Csrsv2|Csrsm2)Info$|^hipsparseCooAoSGet$'),
    ('6.2', r'^hipsparse[SDCZ](bsrsv2_(analysis|bufferSize|solve)|bsrxmv|bsrsm2_(analysis|bufferSize|solve)|'
            r'bsric02(_analysis|_bufferSize)?|bsrilu02(_analysis|_bufferSize|_numericBoost)?|csric02(_analysis|_bufferSize)?|'
            r'csrilu02(_analysis|_bufferSize|_numericBoost)?|csrcolor|csr2csru|csru2csr(_bufferSizeExt)?|nnz_compress|'
            r'prune\\w+)$|^hipsparseX(bsrsv2|bsrsm2|bsric02|bsrilu02|csric02|csrilu02)_zeroPivot$'
            r'|^hipsparse(Create|Destroy)(Bsric02|Bsrilu02|Bsrsm2|Bsrsv2|Color|Csric02|Csrilu02|Prune)Info$'
            r'|^hipsparseCreateIdentityPermutation$|^hipsparseRot$'),
]
HIPSPARSE_CONST_CHANGED = (r'^hipsparse(Axpby|DenseToSparse_\w+|Destroy(DnMat|DnVec|SpMat|SpVec)|DnMatGetStridedBatch|Gather|'
                           r'SDDMM\w*|Scatter|SpGEMM_(compute|copy|workEstimation)|SpGEMMreuse_\w+|SpMM\w*|SpMV\w*|'
                           r'SpMatGet(Attribute|Format|IndexBase|Size|StridedBatch)|SpS[MV]_(analysis|bufferSize|solve)|'
                           r'SpVV\w*|SpVecGetIndexBase|SparseToDense\w*)$')
# cuSPARSE names removed in CUDA 11.0 (no CUDA 11/12/13 header has them) that hipSPARSE still declares
CUSPARSE_CUDA10 = (
    ['cusparse' + p + n for p in 'SDCZ' for n in ('csrmv', 'hybmv', 'csrmm', 'csrmm2', 'csrgemm', 'csrgeam', 'csr2csc', 'csr2hyb',
                                     'hyb2csr', 'doti')]
    + ['cusparseCdotci', 'cusparseZdotci', 'cusparseXcsrgemmNnz', 'cusparseXcsrgeamNnz', 'cusparseCreateHybMat',
       'cusparseDestroyHybMat', 'cusparseHybMat_t', 'cusparseHybPartition_t', 'CUSPARSE_HYB_PARTITION_AUTO',
       'CUSPARSE_HYB_PARTITION_USER', 'CUSPARSE_HYB_PARTITION_MAX'])


def build_cusparse():
    deb = scan_headers(glob.glob('/usr/include/hipsparse/*.h'))
    sets = hp_sets('chipsparse')
    av = Avail(set(deb), sets, HIPSPARSE_SINCE)
    for n in sets[0][1]:
        # the const-descriptor generic API (hipsparseConst*, hipsparseCreateConst*) is ROCm 6.0
        if 'Const' in n and n not in deb and n not in HIPSPARSE_SINCE:
            av.extra[n] = '6.0'
    cur = cuda_names_from(cuda_inc('cusparse.h'), r'(cusparse|CUSPARSE_|\w+Info(_t)?$)')
    old = cuda_names_from(old_inc('nvidia_cusparse_cu11', 'cusparse.h'), r'(cusparse|CUSPARSE_|\w+Info(_t)?$)')
    names = dict(cur)
    removed = {}
    for k, v in old.items():
        if k not in names:
            names[k] = v
            removed[k] = '12.0'
    for k in CUSPARSE_CUDA10 + ['CUSPARSE_SIDE_LEFT', 'CUSPARSE_SIDE_RIGHT', 'cusparseSideMode_t']:
        if k not in names:
            names[k] = 'type' if k.endswith('_t') else ('enum' if k.startswith('CUSPARSE_') else 'function')
            removed[k] = '11.5' if 'SIDE' in k or 'Side' in k else '11.0'
    for k in list(names):
        if names[k] == 'macro' and not k.startswith('CUSPARSE_VER'):
            if not re.match(r'cusparse\w+', k):
                del names[k]
    exc = {'CUSPARSE_VER_MAJOR': 'hipsparseVersionMajor', 'CUSPARSE_VER_MINOR': 'hipsparseVersionMinor',
           'CUSPARSE_VER_PATCH': 'hipsparseVersionPatch',
           'CUSPARSE_SPGEMM_CSR_ALG_DETERMINITIC': 'HIPSPARSE_SPGEMM_CSR_ALG_DETERMINISTIC',
           'CUSPARSE_SPGEMM_CSR_ALG_NONDETERMINITIC': 'HIPSPARSE_SPGEMM_CSR_ALG_NONDETERMINISTIC'}
    for k in names:
        if re.match(r'^[a-z]\w*Info(_t)?$', k) and not k.startswith('cusparse'):
            exc[k] = k          # bsric02Info_t, csrsv2Info_t, pruneInfo_t ... keep their names
    pairs = [('cusparse', 'hipsparse'), ('CUSPARSE_', 'HIPSPARSE_')]
    alts = {r'Logger': 'no logging hooks in hipSPARSE (rocSPARSE: ROCSPARSE_LAYER environment variable)',
            r'SpMMOp|SpMVOp|SPMM_OP': 'hipsparseSpMM / hipsparseSpMV (no JIT-fused operators)',
            r'Bsr|BSR|SlicedEll|SLICED_ELL|SELL': 'convert to CSR (hipsparseXbsr2csr) or use rocSPARSE BSR routines',
            r'Hprune': 'hipsparseSpruneDense2csr / hipsparseSpruneCsr2csr on float data',
            r'csrsv_analysis|csrsv_solve|csrsm_analysis|csrsm_solve|hybsv|SolveAnalysisInfo|LevelInfo':
                'hipsparseSpSV_* / hipsparseSpSM_* (generic API)',
            r'csric0$|csrilu0$|csrilu0Ex': 'hipsparse?csric02 / hipsparse?csrilu02 (or rocSPARSE)',
            r'gtsv$|gtsvStridedBatch$|gtsv_nopivot$': 'hipsparse?gtsv2 / hipsparse?gtsv2StridedBatch / hipsparse?gtsv2_nopivot',
            r'csrmv_mp|CsrmvEx|csrmvEx': 'hipsparseSpMV',
            r'csr2cscEx$|Csr2cscEx$': 'hipsparseCsr2cscEx2',
            r'(csc|dense)2hyb|hyb2(csc|dense)': 'hipsparse?csr2hyb / hipsparse?hyb2csr with a CSR step, or the generic API',
            r'ConstrainedGeMM': 'hipsparseSpMM',
            r'bufferSizeExt$': 'the matching hipsparse *_bufferSize function',
            r'SpGEMM_(estimateMemory|getNumProducts)': 'hipsparseSpGEMM_workEstimation / hipsparseSpGEMM_compute (sizes them)',
            r'SpSV_updateMatrix|SpSM_updateMatrix|UPDATE_': 'redo hipsparseSpSV_analysis with the new values',
            r'ColorAlg|COLOR_ALG': 'hipsparse?csrcolor (no algorithm choice)',
            r'AlgMode|CUSPARSE_ALG\d|ALG_NAIVE|ALG_MERGE_PATH': 'the generic API algorithm enums (HIPSPARSE_SPMV_ALG_DEFAULT, ...)',
            r'SideMode|SIDE_': 'not needed by the hipSPARSE generic API',
            r'SpMatGetNumBatches|SpMatSetNumBatches': 'hipsparseCsrSetStridedBatch / hipsparseCooSetStridedBatch',
            r'^CUSPARSE_VER': 'hipsparseGetVersion (hipSPARSE library version)'}

    def group(c, kind):
        if kind in ('type',):
            return 'types'
        if kind in ('enum', 'macro'):
            return 'enumerators and macros'
        x = c[len('cusparse'):]
        if re.match(r'(Create|Destroy|Get|Set|Copy)(?!.*(Dn|Sp|Coo|Csr|Csc|Bsr|BlockedEll|Const))', x):
            return 'management and helper functions'
        if re.match(r'(Create|Destroy)?(Const)?(Sp|Dn|Coo|Csr|Csc|Bsr|BlockedEll|SlicedEll|Axpby|Gather|Scatter|Rot$|SDDMM|SparseToDense|DenseToSparse)', x):
            return 'generic API'
        return 'legacy (typed) API'

    def status(c, hip):
        for v, pat in HIPSPARSE_DEPRECATED:
            if re.search(pat, hip):
                return 'deprecated'
        return 'supported'

    def note(c, hip, kind):
        n = []
        if c in removed:
            n.append('removed from cuSPARSE in CUDA %s' % removed[c])
        if hip:
            for v, pat in HIPSPARSE_DEPRECATED:
                if re.search(pat, hip):
                    n.append('deprecated in hipSPARSE %s' % ('since ROCm ' + v if v != '3.9' else '(ROCm 3.9)')
                             + '; prefer the generic API (hipsparseSpMV, hipsparseSpMM, hipsparseSpSV_*, ...)')
            if hip in ('hipsparseSpSV_solve', 'hipsparseSpSM_solve'):
                n.append('before ROCm 6.0 hipSPARSE took an extra externalBuffer argument here (the CUDA 11 form); the CUDA 12 argument list needs ROCm 6.0')
            elif re.search(HIPSPARSE_CONST_CHANGED, hip):
                n.append('ROCm 6.0 switched the descriptor arguments to hipsparseConst*Descr_t, matching CUDA 12')
            if c.startswith('CUSPARSE_VER_'):
                n.append('hipSPARSE library version, not the cuSPARSE version')
            if c.startswith('CUSPARSE_SPGEMM_CSR_ALG_'):
                n.append('cuSPARSE misspells DETERMINISTIC; hipSPARSE does not')
        return '; '.join(n) or None
    t = build_simple('cusparse', 'cuSPARSE API', 'hipSPARSE', CUSPARSE_HEADER_COMMENT, names, pairs, av, exc, alts,
                     group, note, status)
    t.header('cusparse.h', 'hipsparse/hipsparse.h', 'hipsparse.h')
    t.header('cusparse_v2.h', 'hipsparse/hipsparse.h', 'hipsparse.h')
    return t


CUSPARSE_HEADER_COMMENT = '''
cuSPARSE -> hipSPARSE.
CUDA names: cusparse.h of CUDA 13.x, plus the names CUDA 12 removed (from CUDA 11.8's cusparse.h)
and those CUDA 11 removed (csrmv, hybmv, csrmm, csr2csc, ... kept by hipSPARSE for old code).
HIP names: Debian's libhipsparse-dev 5.3.3 and the hipSPARSE declarations of ROCm 6.2 .. 7.2.
Debian installs the header only as /usr/include/hipsparse/hipsparse.h (with hipsparse-version.h and
hipsparse-export.h beside it); there is no flat /usr/include/hipsparse.h.
since: first ROCm release, floored at 5.2; every name with since <= 5.2 is declared in the Debian
5.3.3 header.  status "deprecated": hipSPARSE still has it but has deprecated it (the note says when).'''


# ================================================================ cuSOLVER -> hipSOLVER

HIPSOLVER_SINCE = words('''
5.3: HIPSOLVER_EIG_RANGE_ALL HIPSOLVER_EIG_RANGE_I HIPSOLVER_EIG_RANGE_V hipsolverEigRange_t;
6.1: HIPSOLVER_STATUS_MATRIX_TYPE_NOT_SUPPORTED hipsolverSpHandle_t hipsolverSpCreate hipsolverSpDestroy
     hipsolverSpSetStream hipsolverSpScsrlsvchol hipsolverSpDcsrlsvchol hipsolverSpScsrlsvcholHost
     hipsolverSpDcsrlsvcholHost;
6.2: hipsolverDnParams_t hipsolverDnCreateParams hipsolverDnDestroyParams hipsolverDnSetAdvOptions
     hipsolverDnXgetrf hipsolverDnXgetrf_bufferSize hipsolverDnXgetrs HIPSOLVER_ALG_0 HIPSOLVER_ALG_1
     hipsolverAlgMode_t hipsolverDnFunction_t HIPSOLVERDN_GETRF
''')


def hipsolver_since(hip):
    if re.match(r'hipsolverDn[SDCZ](sy|he)(ev|gv)dx(_bufferSize)?$', hip):
        return '5.3'
    if re.match(r'hipsolverDn[SDCZ]gesvdaStridedBatched(_bufferSize)?$', hip):
        return '5.4'
    if hip.startswith(('hipsolverRf', 'HIPSOLVERRF_')) or hip == 'HIPSOLVER_STATUS_ZERO_PIVOT':
        return '5.6'
    return HIPSOLVER_SINCE.get(hip)


def build_cusolver():
    sets = hp_sets('chipsolver')
    av = Avail((), sets, {}, first_is_base=True)
    pat = r'(cusolver|CUSOLVER|cudaLibMg|CUDALIBMG|csrqrInfo|csrcholInfo|csrluInfo|gesvdjInfo|syevjInfo|CUBLAS_DIRECT|CUBLAS_STOREV)'
    cur = cuda_names_from(cuda_inc('cusolverDn.h', 'cusolverRf.h', 'cusolverSp.h', 'cusolverMg.h', 'cusolver_common.h',
                                   'cusolverSp_LOWLEVEL_PREVIEW.h'), pat)
    old = cuda_names_from(old_inc('nvidia_cusolver_cu12', 'cusolverDn.h', 'cusolverRf.h', 'cusolverSp.h', 'cusolverMg.h',
                                  'cusolver_common.h', 'cusolverSp_LOWLEVEL_PREVIEW.h'), pat)
    names = dict(cur)
    removed = set()
    for k, v in old.items():
        if k not in names:
            names[k] = v
            removed.add(k)
    for k in list(names):
        if names[k] == 'macro' and not re.match(r'CUSOLVER_VER|cusolver\w+$', k):
            del names[k]
    exc = {'cusolverDnHandle_t': 'hipsolverHandle_t', 'cusolverDnGetStream': 'hipsolverGetStream',
           'cusolverDnSetStream': 'hipsolverSetStream', 'cusolver_int_t': 'int',
           'gesvdjInfo_t': 'hipsolverGesvdjInfo_t', 'syevjInfo_t': 'hipsolverSyevjInfo_t',
           'CUSOLVER_STATUS_IRS_INTERNAL_ERROR': 'HIPSOLVER_STATUS_INTERNAL_ERROR',
           'CUSOLVER_STATUS_IRS_NOT_SUPPORTED': 'HIPSOLVER_STATUS_NOT_SUPPORTED',
           'CUSOLVER_STATUS_IRS_PARAMS_INVALID': 'HIPSOLVER_STATUS_INVALID_VALUE'}
    av.extra['int'] = BASE
    pairs = [('cusolverDn', 'hipsolverDn'), ('cusolverRf', 'hipsolverRf'), ('cusolverSp', 'hipsolverSp'),
             ('CUSOLVERDN_', 'HIPSOLVERDN_'), ('CUSOLVERRF_', 'HIPSOLVERRF_'), ('CUSOLVER_', 'HIPSOLVER_'),
             ('cusolver', 'hipsolver')]
    alts = {r'IRS|[SDCZ][SDCZHBXKEY]ges[v]|[SDCZ][SDCZHBXKEY]gels': 'hipsolverDn?gesv / hipsolverDn?gels in the working precision (no mixed-precision iterative refinement)',
            r'^cusolverMg|CUDALIBMG|cudaLibMg': 'no multi-GPU solver in hipSOLVER; split per device or use rocSOLVER directly',
            r'Logger': 'ROCSOLVER_LAYER / hipSOLVER logging environment variables',
            r'laswp': 'rocsolver_<t>laswp (rocSOLVER)',
            r'lauum': 'rocsolver_<t>lauum (rocSOLVER)',
            r'sytri': 'rocsolver_<t>sytri is not available; use getrf/getri on the full matrix',
            r'^cusolverDn(Geqrf|Gesvd|Getrf|Getrs|Potrf|Potrs|Syevd|Syevdx)(_bufferSize)?$': 'the hipsolverDnX* 64-bit API (hipsolverDnXgetrf, ...) or the typed hipsolverDn?* functions',
            r'Xgesvd[pr]?(_bufferSize)?$|Xsyevd|Xsyevdx|Xgeev|XsyevBatched|Xsytrs|Xtrtri|Xlarft': 'the typed hipsolverDn?* functions (e.g. hipsolverDnSgesvd)',
            r'^cusolverSp\w*(chol|lu|qr|eig|zfd|perm|sym|issym|metis)': 'rocSOLVER / rocSPARSE factorizations, or densify and call hipsolverDn',
            r'DeterministicMode|DETERMINISTIC': None,
            r'MathMode|EmulationStrategy|MATH$|EMULATED': 'no math-mode control in hipSOLVER',
            r'^CUSOLVER_(R|C)_(8I|8U|16F|16BF|TF32|32F|64F|AP)$|PrecType|PREC_': 'the typed hipsolverDn?* functions',
            r'Norm_t|_NORM$': 'not needed: no IRS API in hipSOLVER',
            r'CUSOLVER_VER': 'hipsolverGetVersion? not provided: use the hipSOLVER version macros (hipsolver-version.h)'}

    def group(c, kind):
        if c.startswith(('cusolverRf', 'CUSOLVERRF_')):
            return 'cuSOLVERRf (refactorization)'
        if c.startswith('cusolverSp') or c.startswith(('csrqrInfo', 'csrcholInfo', 'csrluInfo')):
            return 'cuSOLVERSp (sparse)'
        if c.startswith(('cusolverMg', 'cudaLibMg', 'CUDALIBMG')):
            return 'cuSOLVERMg (multi-GPU)'
        if kind in ('enum', 'macro'):
            return 'enumerators and macros'
        if kind == 'type':
            return 'types'
        return 'cuSOLVERDn (dense) functions'

    def note(c, hip, kind):
        n = []
        if c in removed:
            n.append('removed from cuSOLVER in CUDA 13')
        if hip and c.startswith('cusolverDn') and kind == 'function':
            n.append('hipSOLVER compatibility API (hipsolverDn*), same argument lists as cuSOLVER')
        if c in ('CUSOLVER_STATUS_IRS_INTERNAL_ERROR', 'CUSOLVER_STATUS_IRS_NOT_SUPPORTED', 'CUSOLVER_STATUS_IRS_PARAMS_INVALID'):
            n.append('approximate: hipSOLVER has no IRS statuses')
        if c == 'cusolver_int_t':
            n.append('plain int in hipSOLVER')
        if c == 'cusolverDnHandle_t':
            n.append('hipsolverDnHandle_t exists as an alias too')
        return '; '.join(n) or None
    t = build_simple('cusolver', 'cuSOLVER API (dense, refactorization, sparse)', 'hipSOLVER', CUSOLVER_HEADER_COMMENT,
                     names, pairs, av, exc, alts, group, note, since_fn=hipsolver_since)
    t.header('cusolverDn.h', 'hipsolver/hipsolver.h', 'hipsolver.h')
    t.header('cusolverRf.h', 'hipsolver/hipsolver.h', 'hipsolver.h')
    t.header('cusolverSp.h', 'hipsolver/hipsolver.h', 'hipsolver.h')
    t.header('cusolver_common.h', 'hipsolver/hipsolver.h', 'hipsolver.h')
    return t


CUSOLVER_HEADER_COMMENT = '''
cuSOLVER -> hipSOLVER (its cuSOLVER-compatible hipsolverDn* / hipsolverRf* / hipsolverSp* API).
CUDA names: cusolverDn.h, cusolverRf.h, cusolverSp.h, cusolverMg.h, cusolver_common.h of CUDA 13.x,
plus the 64-bit generic names CUDA 13 removed (from CUDA 12.9).  HIP names: the hipSOLVER
declarations of ROCm 6.2 .. 7.2; releases of names added between 5.2 and 6.2 checked against
HIPIFY's table.  since: first ROCm release, floored at 5.2 (the hipsolverDn compatibility API
first shipped in ROCm 5.1).
Not ported: mixed-precision iterative refinement (IRS), cuSOLVERMg, most of cuSOLVERSp.'''


# ================================================================ NVRTC -> hipRTC

def build_nvrtc():
    base = set(scan_headers(['/usr/include/hip/hiprtc.h']))
    av = Avail(base, hp_sets('chiprtc'), {'hiprtcGetBitcode': '5.3', 'hiprtcGetBitcodeSize': '5.3'})
    names = cuda_names_from(cuda_inc('nvrtc.h'), r'(nvrtc|NVRTC_|_nvrtc)')
    names = {k: v for k, v in names.items() if v != 'macro' or k.startswith('NVRTC_ERROR') or k == 'NVRTC_SUCCESS'}
    exc = {'nvrtcGetPTX': 'hiprtcGetCode', 'nvrtcGetPTXSize': 'hiprtcGetCodeSize',
           'nvrtcGetCUBIN': 'hiprtcGetCode', 'nvrtcGetCUBINSize': 'hiprtcGetCodeSize',
           'nvrtcGetLTOIR': 'hiprtcGetBitcode', 'nvrtcGetLTOIRSize': 'hiprtcGetBitcodeSize'}
    pairs = [('nvrtc', 'hiprtc'), ('NVRTC_', 'HIPRTC_'), ('_nvrtc', '_hiprtc')]
    alts = {r'NVVM': 'hiprtcGetBitcode (LLVM bitcode, with -fgpu-rdc)',
            r'OptiXIR': 'no OptiX on ROCm',
            r'SupportedArchs': 'hipGetDeviceProperties(...).gcnArchName for the current device',
            r'PCH': 'no precompiled-header control in hipRTC',
            r'FlowCallback|CANCELLED': 'no compile cancellation in hipRTC',
            r'TIME_FILE|TIME_TRACE': 'no time-trace output in hipRTC'}

    def note(c, hip, kind):
        return {
            'nvrtcGetPTX': 'returns the compiled AMDGPU code object (binary), not PTX text; load it with hipModuleLoadData',
            'nvrtcGetPTXSize': 'size of the code object',
            'nvrtcGetCUBIN': 'the code object is the counterpart of a CUBIN',
            'nvrtcGetCUBINSize': 'size of the code object',
            'nvrtcGetLTOIR': 'LLVM bitcode for hiprtcLink* (compile with -fgpu-rdc), the counterpart of LTO IR',
            'nvrtcGetLTOIRSize': 'size of the bitcode',
            'nvrtcCompileProgram': 'CUDA options (--gpu-architecture=compute_XX, -arch=sm_XX, --use_fast_math spelled differently) must become hipcc/clang ones such as --offload-arch=gfx90a; by default hipRTC targets the current device',
            'nvrtcCreateProgram': 'same arguments; the source must include hip/hip_runtime.h-compatible code (hipRTC predefines the HIP builtins)',
        }.get(c)
    t = build_simple('nvrtc', 'NVRTC runtime compilation API', 'hipRTC', NVRTC_HEADER_COMMENT, names, pairs, av, exc,
                     alts, lambda c, k: {'function': 'functions'}.get(k, 'types and result codes'), note)
    t.header('nvrtc.h', 'hip/hiprtc.h')
    return t


NVRTC_HEADER_COMMENT = '''
NVRTC -> hipRTC (part of the HIP runtime: hip/hiprtc.h, library libhiprtc).
CUDA names: nvrtc.h (CUDA 13.x).  HIP names: /usr/include/hip/hiprtc.h of Debian's HIP 5.2.3 and the
hipRTC declarations of ROCm 6.2 .. 7.2.  since: first ROCm release, floored at 5.2.
hipRTC produces AMDGPU code objects, not PTX: nvrtcGetPTX / nvrtcGetCUBIN both map to hiprtcGetCode.'''


# ================================================================ NVTX -> roctx

def build_nvtx():
    roctx = set().union(*[s for v, s in hp_sets('croctx')])
    av = Avail(roctx, (), {})
    paths = glob.glob('/usr/local/cuda/include/nvtx3/nvToolsExt.h') + \
        glob.glob('/usr/local/cuda/include/nvtx3/nvToolsExtCuda*.h') + \
        glob.glob('/usr/local/cuda/include/nvtx3/nvToolsExtSync.h')
    names = cuda_names_from(paths, r'(nvtx|NVTX_)')
    names = {k: v for k, v in names.items()
             if not re.search(r'(_v\d|_impl|Impl|FnPtr|_fntypes|Globals|_etid|Eti|CallbackId|_IMPL|_DECLSPEC|_API|_INLINE|_LINKONCE|_VERSIONED|_STDINT|_NO_IMPL|CONCAT|RESOURCE_MAKE|_H$|_H_$)', k)
             and (v != 'macro' or k in ('NVTX_VERSION',))}
    exc = {'nvtxRangePushA': 'roctxRangePushA', 'nvtxRangePop': 'roctxRangePop', 'nvtxMarkA': 'roctxMarkA',
           'nvtxRangeStartA': 'roctxRangeStartA', 'nvtxRangeEnd': 'roctxRangeStop', 'nvtxRangeId_t': 'roctx_range_id_t'}
    alts = {r'W$': 'the A (char*) variant with a narrow string: roctx has no wide-character API',
            r'^nvtx(Mark|RangeStart|RangePush)Ex$': 'roctxMarkA / roctxRangeStartA / roctxRangePushA with eventAttrib.message.ascii (no colors, categories or payloads)',
            r'Domain': 'the global roctx calls: roctx has no domains',
            r'^nvtxName': 'no naming API in roctracer roctx (rocprofiler-sdk roctx has roctxNameOsThread, roctxNameHipStream, ... from ROCm 6.2)',
            r'Sync|SYNC': 'no synchronization-object annotations in roctx',
            r'Category|Color|COLOR|Payload|PAYLOAD|MessageType|MESSAGE|EventAttributes|EVENT_ATTRIB': 'plain roctx messages (no attributes)',
            r'Initialize': 'nothing: roctx needs no initialization'}

    def note(c, hip, kind):
        return {'nvtxRangeEnd': 'roctxRangeStop takes the roctx_range_id_t that roctxRangeStartA returned',
                'nvtxRangePop': 'returns the remaining depth like nvtxRangePop (negative on error)',
                'nvtxRangePushA': 'returns the zero-based nesting level like nvtxRangePushA'}.get(c)
    t = build_simple('nvtx', 'NVTX (NVIDIA Tools Extension) markers and ranges', 'roctx (ROCTracer)', NVTX_HEADER_COMMENT,
                     names, [], av, exc, alts, lambda c, k: {'function': 'functions'}.get(k, 'types, enumerators and macros'),
                     note)
    t.header('nvToolsExt.h', 'roctracer/roctx.h', 'roctx.h')
    t.header('nvtx3/nvToolsExt.h', 'roctracer/roctx.h', 'roctx.h')
    t.header('nvToolsExtCuda.h', 'roctracer/roctx.h', 'roctx.h', comment='CUDA resource naming has no roctx counterpart: its names are unsupported')
    t.header('nvtx3/nvToolsExtCuda.h', 'roctracer/roctx.h', 'roctx.h')
    t.header('nvToolsExtCudaRt.h', 'roctracer/roctx.h', 'roctx.h')
    t.header('nvtx3/nvToolsExtCudaRt.h', 'roctracer/roctx.h', 'roctx.h')
    return t


NVTX_HEADER_COMMENT = '''
NVTX -> roctx (ROCTracer's marker API: roctracer/roctx.h, link with -lroctx64).
Only the plain ASCII mark / push / pop / start / stop calls have counterparts; everything with
attributes (colors, categories, payloads), domains, wide strings, resource naming and sync objects
is unsupported.  CUDA names: /usr/local/cuda/include/nvtx3 (CUDA 13.0).  roctx names: roctx of
ROCm 6.2 .. 7.2 (present, unchanged, long before 5.2).  ROCm 6.2+ also ships rocprofiler-sdk's
roctx (rocprofiler-sdk-roctx/roctx.h) with the same core calls; roctracer is deprecated there.'''


# ================================================================ NCCL -> RCCL

# first ROCm release whose RCCL has an NCCL API addition (RCCL tracks NCCL: ROCm 5.3 ~ 2.12,
# 5.4 ~ 2.13, 5.5 ~ 2.15, 6.0 ~ 2.18, 6.2 ~ 2.20); names older than NCCL 2.12 were in 5.2 (RCCL 2.11)
NCCL_SINCE = words('''
5.3: ncclRemoteError;
5.4: ncclGetLastError;
5.5: ncclCommInitRankConfig ncclConfig_t ncclCommFinalize ncclInProgress NCCL_CONFIG_INITIALIZER;
6.0: ncclCommSplit NCCL_SPLIT_NOCOLOR;
6.2: ncclMemAlloc ncclMemFree ncclCommRegister ncclCommDeregister
''')


def build_nccl():
    sets = hp_sets('crccl')
    av = Avail((), sets, {}, first_is_base=True)
    names = cuda_names_from(cuda_inc('nccl.h'), r'(p?nccl|NCCL_)')
    names = {k: v for k, v in names.items() if not re.search(r'_v\d+$|_dummy|NCCL_H_', k)}
    exc = {'ncclAlltoAll': 'ncclAllToAll', 'pncclAlltoAll': 'pncclAllToAll'}
    for k in ('NCCL_CONFIG_INITIALIZER', 'NCCL_SPLIT_NOCOLOR', 'NCCL_VERSION', 'NCCL_SIM_INFO_INITIALIZER'):
        if k in names:
            av.extra.setdefault(k, None)
    # macros RCCL defines (rccl.h) but hip-python does not declare
    av.extra.update({'NCCL_CONFIG_INITIALIZER': '5.5', 'NCCL_SPLIT_NOCOLOR': '6.0', 'NCCL_VERSION': BASE,
                     'NCCL_SIM_INFO_INITIALIZER': '6.2'})

    def since(hip):
        return NCCL_SINCE.get(hip.lstrip('p') if hip.startswith('pnccl') else hip)
    alts = {r'AlltoAllConfig|GatherConfig|ScatterConfig': 'ncclAllToAll / ncclGather / ncclScatter (RCCL extensions without a config argument)',
            r'Window|WIN_': 'ncclCommRegister / ncclCommDeregister (RCCL has no symmetric-memory windows before 7.1)',
            r'QueryProperties|ncclCommProperties': 'ncclCommCount / ncclCommCuDevice / ncclCommUserRank',
            r'Shrink': 'ncclCommSplit with NCCL_SPLIT_NOCOLOR for the excluded ranks',
            r'ncclDev|Device|GIN|Lsa|LSA': 'no NCCL device-side API in RCCL',
            r'Float8|ncclFloat8': 'convert to ncclHalf / ncclBfloat16 (RCCL fp8 types depend on the ROCm release)'}

    def note(c, hip, kind):
        if c in ('ncclAlltoAll', 'pncclAlltoAll'):
            return 'RCCL spells it ncclAllToAll (RCCL extension that predates NCCL 2.28\'s ncclAlltoAll); same arguments'
        if c == 'ncclCommCuDevice':
            return 'returns the HIP device index'
        if c == 'ncclUnhandledCudaError':
            return 'RCCL reports HIP errors with it'
        if c.startswith('pnccl'):
            return 'profiling (PMPI-style) entry point'
        if c in ('NCCL_MAJOR', 'NCCL_MINOR', 'NCCL_PATCH', 'NCCL_VERSION_CODE', 'NCCL_SUFFIX'):
            return 'the NCCL API version RCCL implements'
        return None

    def group(c, kind):
        if kind == 'function':
            return 'profiling entry points (pnccl*)' if c.startswith('pnccl') else 'functions'
        return {'type': 'types'}.get(kind, 'enumerators and macros')
    t = build_simple('nccl', 'NCCL collective communication API', 'RCCL', NCCL_HEADER_COMMENT, names, [('', '')], av, exc,
                     alts, group, note, since_fn=since)
    t.header('nccl.h', 'rccl/rccl.h', 'rccl.h')
    return t


NCCL_HEADER_COMMENT = '''
NCCL -> RCCL.  RCCL keeps NCCL's names (ncclAllReduce stays ncclAllReduce); only the header changes
(nccl.h -> rccl/rccl.h; older ROCm installed it flat as rccl.h).
CUDA names: nccl.h of NCCL 2.32 (the nvidia-nccl-cu13 wheel).  RCCL names: RCCL of ROCm 6.2 .. 7.2.
since: first ROCm release whose RCCL has the name (floored at 5.2); for names that NCCL added between
2.12 and 2.19 the release is inferred from the NCCL version each ROCm's RCCL tracked, so treat those as
approximate.  Unsupported: NCCL's device API (nccl_device.h), symmetric windows before RCCL had them,
and the newest config variants.'''


# ================================================================ CUB -> hipCUB

CUB_TYPES = words('''
5.2: BlockAdjacentDifference BlockDiscontinuity BlockExchange BlockHistogram BlockLoad BlockMergeSort
     BlockRadixRank BlockRadixRankMatch BlockRadixSort BlockRakingLayout BlockReduce BlockRunLengthDecode BlockScan
     BlockShuffle BlockStore WarpReduce WarpScan WarpLoad WarpStore WarpExchange WarpMergeSort
     DeviceHistogram DeviceMergeSort DevicePartition DeviceRadixSort DeviceReduce DeviceRunLengthEncode DeviceScan
     DeviceSegmentedRadixSort DeviceSegmentedReduce DeviceSegmentedSort DeviceSelect DeviceSpmv
     GridBarrier GridBarrierLifetime GridEvenShare GridQueue
     ArgIndexInputIterator CacheModifiedInputIterator CacheModifiedOutputIterator ConstantInputIterator
     CountingInputIterator DiscardOutputIterator TexObjInputIterator TexRefInputIterator TransformInputIterator
     CachingDeviceAllocator DoubleBuffer KeyValuePair ArgMax ArgMin Max Min Sum Equality Inequality
     InequalityWrapper SwizzleScanOp ReduceBySegmentOp ReduceByKeyOp Traits NumericTraits BaseTraits
     Uninitialized RadixSortTwiddle BlockLoadAlgorithm BlockStoreAlgorithm BlockReduceAlgorithm
     BlockScanAlgorithm BlockHistogramAlgorithm CacheLoadModifier CacheStoreModifier WarpLoadAlgorithm
     WarpStoreAlgorithm;
5.3: DeviceAdjacentDifference;
6.1: DeviceMemcpy;
6.2: DeviceCopy WarpExchangeAlgorithm;
6.4: DeviceFor CubVector;
6.5: BlockScanRunningPrefixOp ScanTileStatus ScanTileState ReduceByKeyScanTileState TilePrefixCallbackOp
''')
CUB_ENUMS = ('BLOCK_LOAD_DIRECT BLOCK_LOAD_STRIPED BLOCK_LOAD_VECTORIZE BLOCK_LOAD_TRANSPOSE BLOCK_LOAD_WARP_TRANSPOSE '
             'BLOCK_LOAD_WARP_TRANSPOSE_TIMESLICED BLOCK_STORE_DIRECT BLOCK_STORE_STRIPED BLOCK_STORE_VECTORIZE '
             'BLOCK_STORE_TRANSPOSE BLOCK_STORE_WARP_TRANSPOSE BLOCK_STORE_WARP_TRANSPOSE_TIMESLICED '
             'BLOCK_REDUCE_RAKING BLOCK_REDUCE_RAKING_COMMUTATIVE_ONLY BLOCK_REDUCE_WARP_REDUCTIONS '
             'BLOCK_SCAN_RAKING BLOCK_SCAN_RAKING_MEMOIZE BLOCK_SCAN_WARP_SCANS BLOCK_HISTO_SORT BLOCK_HISTO_ATOMIC '
             'LOAD_DEFAULT LOAD_CA LOAD_CG LOAD_CS LOAD_CV LOAD_LDG LOAD_VOLATILE STORE_DEFAULT STORE_WB STORE_CG '
             'STORE_CS STORE_WT STORE_VOLATILE WARP_LOAD_DIRECT WARP_LOAD_STRIPED WARP_LOAD_VECTORIZE '
             'WARP_LOAD_TRANSPOSE WARP_STORE_DIRECT WARP_STORE_STRIPED WARP_STORE_VECTORIZE WARP_STORE_TRANSPOSE').split()
CUB_FUNCS = ('LoadDirectBlocked LoadDirectBlockedVectorized LoadDirectStriped LoadDirectWarpStriped '
             'StoreDirectBlocked StoreDirectBlockedVectorized StoreDirectStriped StoreDirectWarpStriped '
             'ThreadLoad ThreadStore ThreadReduce ThreadScanExclusive ThreadScanInclusive ShuffleIndex ShuffleUp '
             'ShuffleDown LaneId WarpId LaneMaskLt LaneMaskLe LaneMaskGt LaneMaskGe BFE BFI CTA_SYNC WARP_SYNC '
             'MergePathSearch UpperBound LowerBound DivideAndRoundUp').split()
CUB_HOST = 'PtxVersion SmVersion SyncStream DeviceCount CurrentDevice Debug AliasTemporaries'.split()
CUB_MACROS = {
    'CUB_NAMESPACE_BEGIN': ('BEGIN_HIPCUB_NAMESPACE', BASE), 'CUB_NAMESPACE_END': ('END_HIPCUB_NAMESPACE', BASE),
    'CUB_PTX_ARCH': ('HIPCUB_ARCH', BASE), 'CUB_PTX_WARP_THREADS': ('HIPCUB_WARP_THREADS', BASE),
    'CUB_WARP_THREADS': ('HIPCUB_WARP_THREADS', BASE),
    'CUB_RUNTIME_FUNCTION': ('HIPCUB_RUNTIME_FUNCTION', BASE), 'CUB_STDERR': ('HIPCUB_STDERR', BASE),
    'CubDebug': ('HipcubDebug', BASE), '_CubLog': ('_HipcubLog', BASE), '__CUB_ALIGN_BYTES': ('__HIPCUB_ALIGN_BYTES', BASE),
    'CUB_MAX': ('HIPCUB_MAX', '6.4'), 'CUB_MIN': ('HIPCUB_MIN', '6.4'),
    'CUB_QUOTIENT_FLOOR': ('HIPCUB_QUOTIENT_FLOOR', '6.4'), 'CUB_QUOTIENT_CEILING': ('HIPCUB_QUOTIENT_CEILING', '6.4'),
    'CUB_ROUND_UP_NEAREST': ('HIPCUB_ROUND_UP_NEAREST', '6.4'), 'CUB_ROUND_DOWN_NEAREST': ('HIPCUB_ROUND_DOWN_NEAREST', '6.4'),
    'CUB_DEBUG_SYNC': ('HIPCUB_DEBUG_SYNC', '6.2'), 'CUB_IGNORE_DEPRECATED_API': ('HIPCUB_IGNORE_DEPRECATED_API', '6.2'),
}
CUB_MACROS_NONE = {
    'CUB_VERSION': 'HIPCUB_VERSION (hipCUB release number, not a CUB version)',
    'CUB_MAJOR_VERSION': 'HIPCUB_VERSION_MAJOR', 'CUB_MINOR_VERSION': 'HIPCUB_VERSION_MINOR',
    'CUB_SUBMINOR_VERSION': 'HIPCUB_VERSION_PATCH', 'CUB_PATCH_NUMBER': 'HIPCUB_VERSION_PATCH',
    'CubDebugExit': 'HipcubDebug plus an explicit exit', 'CUB_LOG_WARP_THREADS': 'a constant log2(HIPCUB_WARP_THREADS)',
    'CUB_PTX_LOG_WARP_THREADS': 'a constant log2(HIPCUB_WARP_THREADS)', 'CUB_LOG_SMEM_BANKS': 'a constant (32 LDS banks on AMD GPUs)',
    'CUB_SMEM_BANKS': 'a constant (32 LDS banks on AMD GPUs)', 'CUB_PTX_SMEM_BANKS': 'a constant (32 LDS banks)',
    'CUB_RUNTIME_ENABLED': 'nothing: device-side launches of hipCUB device algorithms are not supported',
    'CUB_IS_DEVICE_CODE': '__HIP_DEVICE_COMPILE__', 'CUB_IS_HOST_CODE': '!__HIP_DEVICE_COMPILE__',
    'CUB_INCLUDE_DEVICE_CODE': '__HIP_DEVICE_COMPILE__', 'CUB_INCLUDE_HOST_CODE': '!__HIP_DEVICE_COMPILE__',
    'CUB_STATIC_ASSERT': 'static_assert', 'CUB_CPP_DIALECT': '__cplusplus', 'CUB_DEFINE_VECTOR_TYPE': None,
    'CUB_USE_COOPERATIVE_GROUPS': None, 'CUB_DEVICE_COMPILER': None, 'CUB_HOST_COMPILER': None,
    'CUB_PREVENT_MACRO_SUBSTITUTION': None, 'CUB_DEFINE_DETECT_NESTED_TYPE': None, 'CUB_ALIGN': 'alignas',
}


def build_cub():
    t = Table('cub', 'CUB (CUDA C++ parallel primitives)', 'hipCUB', BASE, CUB_HEADER_COMMENT)
    for n, v in CUB_TYPES.items():
        note = None
        if n in ('TexRefInputIterator',):
            note = 'texture references are deprecated in HIP too; prefer TexObjInputIterator'
        if n == 'DeviceSpmv':
            note = 'removed from CUB in CCCL 3.0; hipCUB still has it, but prefer hipSPARSE'
        if n in ('Sum', 'Max', 'Min', 'ArgMax', 'ArgMin', 'Equality', 'Inequality'):
            note = 'CCCL 3.0 deprecates these functors for cuda::std ones; hipCUB keeps them'
        if n == 'BlockRunLengthDecode':
            note = 'came with hipCUB\'s CUB 1.14 API update (ROCm 5.0)'
        if v == '6.5':
            note = 'hipCUB 3.5 (ROCm 6.5 development line, released with ROCm 7.0)'
            v = '7.0'
        t.add('block, warp, device and utility types (qualified as cub::X -> hipcub::X)', n, 'type', hip=n, since=v, note=note)
    for n in ('DeviceMerge', 'DeviceTransform'):
        t.add('block, warp, device and utility types (qualified as cub::X -> hipcub::X)', n, 'type', hip=n, since='7.0',
              note='newer hipCUB addition (after hipCUB 3.5); the first ROCm release was not pinned down, check your hipCUB')
    for n in CUB_ENUMS:
        t.add('algorithm and cache-modifier enumerators', n, 'enum', hip=n,
              since='6.2' if n.startswith('WARP_EXCHANGE') else BASE)
    for n in CUB_FUNCS:
        note = None
        if n in ('LaneMaskLt', 'LaneMaskLe', 'LaneMaskGt', 'LaneMaskGe', 'WarpId', 'LaneId', 'ShuffleIndex', 'ShuffleUp', 'ShuffleDown'):
            note = 'AMD wavefronts have 64 lanes on CDNA GPUs (32 on RDNA): masks are 64-bit; do not hard-code 32'
        if n in ('BFE', 'BFI'):
            note = 'bit-field helpers; hipCUB implements them without PTX'
        t.add('device functions', n, 'device', hip=n, note=note)
    for n in CUB_HOST:
        t.add('host utilities', n, 'function', hip=n, since='6.4' if n == 'AliasTemporaries' else BASE)
    for k, (h, v) in CUB_MACROS.items():
        note = 'hipCUB warp size: 64 on CDNA GPUs' if 'WARP_THREADS' in k else None
        t.add('macros', k, 'macro', hip=h, since=v, note=note)
    for k, alt in CUB_MACROS_NONE.items():
        t.add('macros', k, 'macro', status='unsupported', alt=alt)
    t.namespaces['cub'] = collections.OrderedDict(hip='hipcub')
    t.header('cub/cub.cuh', 'hipcub/hipcub.hpp')
    base = '/usr/local/cuda/include/cccl/'
    hdrs = sorted(os.path.relpath(p, base) for p in glob.glob(base + 'cub/**/*.cuh', recursive=True)
                  if not re.search(r'/(detail|agent|specializations|dispatch|kernels|tuning)/', p))
    for h in hdrs:
        if h != 'cub/cub.cuh':
            t.header(h, 'hipcub/hipcub.hpp')
    return t


CUB_HEADER_COMMENT = '''
CUB -> hipCUB.  hipCUB mirrors CUB's API in namespace hipcub: [namespaces] renames cub:: to hipcub::,
and [names] lists the bare identifiers that exist there (same name on both sides), the CUB macros
with hipCUB spellings, and the CUB macros hipCUB lacks.  Every CUB header maps to hipcub/hipcub.hpp
(hipCUB also has per-primitive headers, e.g. hipcub/block/block_reduce.hpp).
since: first ROCm release whose hipCUB has it (hipCUB change log), floored at 5.2.
Warp-level code: AMD CDNA wavefronts are 64 threads wide (RDNA: 32); templates that assume 32
lanes (WarpReduce<T, 32> is fine, hand-written 32-bit lane masks are not) need review.'''


# ================================================================ Thrust -> rocThrust

def build_thrust():
    t = Table('thrust', 'Thrust CUDA backend (thrust::cuda, THRUST_DEVICE_SYSTEM_CUDA)', 'rocThrust', BASE,
              THRUST_HEADER_COMMENT)
    g = 'CUDA system (qualified names)'
    qual = [
        ('thrust::cuda', 'thrust::hip', 'namespace', None),
        ('thrust::system::cuda', 'thrust::system::hip', 'namespace', None),
        ('thrust::cuda_cub', 'thrust::hip_rocprim', 'namespace', 'backend implementation namespace'),
        ('thrust::cuda::par', 'thrust::hip::par', 'type', 'execution policy object'),
        ('thrust::cuda::par_nosync', 'thrust::hip::par_nosync', 'type', 'non-synchronizing policy (rocThrust 2.x)'),
        ('thrust::cuda::tag', 'thrust::hip::tag', 'type', None),
        ('thrust::cuda::execution_policy', 'thrust::hip::execution_policy', 'type', None),
        ('thrust::cuda::pointer', 'thrust::hip::pointer', 'type', None),
        ('thrust::cuda::universal_pointer', 'thrust::hip::universal_pointer', 'type', None),
        ('thrust::cuda::vector', 'thrust::hip::vector', 'type', None),
        ('thrust::cuda::universal_vector', 'thrust::hip::universal_vector', 'type', None),
        ('thrust::cuda::allocator', 'thrust::hip::allocator', 'type', None),
        ('thrust::cuda::universal_allocator', 'thrust::hip::universal_allocator', 'type', None),
        ('thrust::cuda::memory_resource', 'thrust::hip::memory_resource', 'type', None),
        ('thrust::cuda::universal_memory_resource', 'thrust::hip::universal_memory_resource', 'type', None),
        ('thrust::cuda::malloc', 'thrust::hip::malloc', 'function', None),
        ('thrust::cuda::free', 'thrust::hip::free', 'function', None),
        ('thrust::system::cuda::par', 'thrust::system::hip::par', 'type', None),
        ('thrust::system::cuda::tag', 'thrust::system::hip::tag', 'type', None),
        ('thrust::system::cuda::vector', 'thrust::system::hip::vector', 'type', None),
        ('thrust::system::cuda::pointer', 'thrust::system::hip::pointer', 'type', None),
        ('thrust::system::cuda_category', 'thrust::system::hip_category', 'function', None),
    ]
    for c, h, k, note in qual:
        t.add(g, c, k, hip=h, note=note)
    t.add(g, 'thrust::cuda_cub::launcher', 'type', status='unsupported', alt='a hipLaunchKernelGGL / <<<>>> launch')
    macros = [('THRUST_DEVICE_SYSTEM_CUDA', 'THRUST_DEVICE_SYSTEM_HIP', None),
              ('THRUST_DEVICE_BACKEND_CUDA', 'THRUST_DEVICE_SYSTEM_HIP', 'old spelling of the device-system value'),
              ('__THRUST_HAS_CUDART__', '__THRUST_HAS_HIPRT__', 'true in host code when the device runtime can be called')]
    for c, h, note in macros:
        if h is None:
            continue
        t.add('macros', c, 'macro', hip=h, note=note)
    for c, alt in (('THRUST_IGNORE_CUB_VERSION_CHECK', 'nothing: rocThrust pins its rocPRIM version itself'),
                   ('CUDA_CUB_RET_IF_FAIL', 'check hipError_t explicitly'),
                   ('THRUST_CUDA_DEFAULT_MAX_BLOCK_SIZE', 'THRUST_HIP_DEFAULT_MAX_BLOCK_SIZE (rocThrust tuning knob, default 256)')):
        t.add('macros', c, 'macro', status='unsupported', alt=alt)
    hdrs = ['execution_policy.h', 'vector.h', 'memory.h', 'memory_resource.h', 'pointer.h', 'error.h', 'config.h']
    for h in hdrs:
        t.header('thrust/system/cuda/' + h, 'thrust/system/hip/' + h)
    t.header('thrust/system/cuda/detail/par.h', 'thrust/system/hip/detail/par.h')
    t.header('thrust/system/cuda/detail/util.h', 'thrust/system/hip/detail/util.h')
    return t


THRUST_HEADER_COMMENT = '''
Thrust -> rocThrust.  rocThrust keeps the thrust namespace and every portable Thrust name, so nothing
in thrust::* changes except the CUDA-system names: thrust::cuda -> thrust::hip,
thrust::system::cuda -> thrust::system::hip, thrust::cuda_cub -> thrust::hip_rocprim, the
THRUST_DEVICE_SYSTEM_CUDA value and the thrust/system/cuda/* headers.  Keys here are qualified
names ("thrust::cuda::par"); the loader matches them as written.  Portable headers
(thrust/device_vector.h, thrust/sort.h, ...) keep their paths.  since: all of this is in
rocThrust of ROCm 5.2 (thrust::hip::par_nosync came with rocThrust 2.x, check older releases).'''


# ================================================================ cooperative groups

CG = 'cooperative_groups::'


def build_cg():
    t = Table('cooperative_groups', 'CUDA cooperative groups', 'HIP cooperative groups', BASE, CG_HEADER_COMMENT)
    g_types, g_fns, g_mem, g_algo = 'group types', 'group constructors and free functions', \
        'group member functions (called as g.name())', 'collective algorithms (cooperative_groups/*.h)'
    for n in ('thread_group', 'thread_block', 'grid_group', 'multi_grid_group', 'thread_block_tile', 'coalesced_group'):
        note = None
        if n == 'multi_grid_group':
            note = 'deprecated in CUDA 11.x and gone from CUDA 13; HIP keeps it (hipLaunchCooperativeKernelMultiDevice)'
        if n == 'thread_block_tile':
            note = 'tile sizes up to the wavefront size (64 on CDNA GPUs, 32 on RDNA); a 32-wide tile is a half wavefront on CDNA'
        t.add(g_types, CG + n, 'type', hip=CG + n, note=note)
    t.add(g_types, CG + 'cluster_group', 'type', status='unsupported', alt='thread_block (AMD GPUs have no thread-block clusters)')
    for n in ('this_thread_block', 'this_grid', 'this_multi_grid', 'coalesced_threads', 'tiled_partition', 'sync'):
        note = None
        if n == 'this_grid':
            note = 'grid.sync() needs a cooperative launch (hipLaunchCooperativeKernel), as in CUDA'
        if n == 'tiled_partition':
            note = 'static (tiled_partition<N>) and dynamic forms exist; N must divide the wavefront size'
        t.add(g_fns, CG + n, 'function', hip=CG + n, note=note)
    t.add(g_fns, CG + 'this_cluster', 'function', status='unsupported', alt='this_thread_block()')
    t.add(g_fns, CG + 'labeled_partition', 'function', status='unsupported',
          note='not in HIP 5.2', alt='group the threads by hand with ballot / __match_any and shuffles')
    t.add(g_fns, CG + 'binary_partition', 'function', status='unsupported',
          note='not in HIP 5.2', alt='coalesced_threads() inside each branch of the predicate')
    t.add(g_fns, CG + 'invoke_one', 'function', status='unsupported', alt='if (g.thread_rank() == 0) { ... }')
    t.add(g_fns, CG + 'invoke_one_broadcast', 'function', status='unsupported', alt='if (g.thread_rank() == 0) compute, then g.shfl(value, 0)')
    # members
    for n in ('thread_rank', 'group_index', 'thread_index', 'is_valid', 'grid_rank', 'num_grids', 'shfl', 'shfl_up',
              'shfl_down', 'shfl_xor'):
        t.add(g_mem, n, 'function', hip=n)
    t.add(g_mem, CG + 'thread_group::size', 'function', hip=CG + 'thread_group::size',
          note='size() is the member on every HIP group type')
    t.add(g_mem, CG + 'thread_group::sync', 'function', hip=CG + 'thread_group::sync', note='g.sync() on every group type')
    for n in ('meta_group_rank', 'meta_group_size', 'ballot', 'any', 'all', 'match_any', 'match_all'):
        qual = CG + 'thread_block_tile::' + n
        t.add(g_mem, qual if n in ('any', 'all', 'ballot') else n, 'function', hip=qual if n in ('any', 'all', 'ballot') else n,
              since='6.2', note='not in HIP 5.2; on thread_block_tile in the ROCm 6.2 documentation (first release not pinned down)')
    t.add(g_mem, 'num_threads', 'function', hip='num_threads', since='7.1',
          note='not in HIP 5.2 (use size()); seen in ROCm 7.1 headers, earlier releases not checked')
    t.add(g_mem, 'dim_threads', 'function', status='unsupported', alt='group_dim() on thread_block, or blockDim')
    for n, alt in (('num_blocks', 'gridDim.x * gridDim.y * gridDim.z'), ('block_rank', 'a linearised blockIdx'),
                   ('block_index', 'blockIdx'), ('dim_blocks', 'gridDim'), ('block_dim', 'blockDim'),
                   ('barrier_arrive', 'g.sync()'), ('barrier_wait', 'g.sync()')):
        t.add(g_mem, n, 'function', status='unsupported', alt=alt)
    # algorithms
    t.add(g_algo, CG + 'reduce', 'function', status='unsupported',
          note='cooperative_groups/reduce.h has no HIP 5.2 counterpart',
          alt='a shfl_down / shfl_xor loop over the tile (or hipcub::WarpReduce)')
    for n in ('plus', 'less', 'greater', 'bit_and', 'bit_or', 'bit_xor'):
        t.add(g_algo, CG + n, 'type', status='unsupported', alt='std::plus<> etc. inside a hand-written tile reduction')
    for n in ('reduce_update_async', 'reduce_store_async'):
        t.add(g_algo, CG + n, 'function', status='unsupported', alt='a tile reduction followed by an atomic or a store')
    for n in ('inclusive_scan', 'exclusive_scan'):
        t.add(g_algo, CG + n, 'function', status='unsupported', alt='hipcub::WarpScan')
    for n in ('memcpy_async', 'wait', 'wait_prior'):
        t.add(g_algo, CG + n, 'function', status='unsupported',
              alt='plain loads/stores to shared memory followed by g.sync() (no asynchronous copy engine exposed)')
    t.namespaces['cooperative_groups'] = collections.OrderedDict(hip='cooperative_groups')
    t.header('cooperative_groups.h', 'hip/hip_cooperative_groups.h')
    return t


CG_HEADER_COMMENT = '''
CUDA cooperative groups -> HIP cooperative groups (namespace cooperative_groups in both;
cooperative_groups.h -> hip/hip_cooperative_groups.h).
Checked against HIP 5.2's amd_hip_cooperative_groups.h (Debian libamdhip64-dev 5.2.3) and CUDA
13.0's cooperative_groups.h.  Free functions and types use qualified keys
("cooperative_groups::reduce") so that unrelated reduce / plus / wait identifiers are not flagged;
member functions with distinctive names are listed bare.
Not available in HIP: cooperative_groups/reduce.h, cooperative_groups/scan.h and
cooperative_groups/memcpy_async.h (no [headers] entry: there is nothing to include instead; the
names inside are unsupported with alternatives), labeled_partition, binary_partition, clusters.'''


# ================================================================ cuDNN -> MIOpen

CUDNN_FAITHFUL = {
    'cudnnHandle_t': 'miopenHandle_t', 'cudnnContext': 'miopenHandle', 'cudnnStatus_t': 'miopenStatus_t',
    'cudnnCreate': 'miopenCreate', 'cudnnDestroy': 'miopenDestroy', 'cudnnSetStream': 'miopenSetStream',
    'cudnnGetStream': 'miopenGetStream', 'cudnnGetErrorString': 'miopenGetErrorString',
    'cudnnTensorDescriptor_t': 'miopenTensorDescriptor_t', 'cudnnCreateTensorDescriptor': 'miopenCreateTensorDescriptor',
    'cudnnDestroyTensorDescriptor': 'miopenDestroyTensorDescriptor',
    'cudnnGetTensor4dDescriptor': 'miopenGet4dTensorDescriptor', 'cudnnSetTensor': 'miopenSetTensor',
    'cudnnScaleTensor': 'miopenScaleTensor',
    'cudnnDataType_t': 'miopenDataType_t', 'CUDNN_DATA_FLOAT': 'miopenFloat', 'CUDNN_DATA_HALF': 'miopenHalf',
    'CUDNN_DATA_INT8': 'miopenInt8', 'CUDNN_DATA_INT32': 'miopenInt32', 'CUDNN_DATA_BFLOAT16': 'miopenBFloat16',
    'CUDNN_DATA_DOUBLE': 'miopenDouble',
    'CUDNN_STATUS_SUCCESS': 'miopenStatusSuccess', 'CUDNN_STATUS_NOT_INITIALIZED': 'miopenStatusNotInitialized',
    'CUDNN_STATUS_ALLOC_FAILED': 'miopenStatusAllocFailed', 'CUDNN_STATUS_BAD_PARAM': 'miopenStatusBadParm',
    'CUDNN_STATUS_INTERNAL_ERROR': 'miopenStatusInternalError', 'CUDNN_STATUS_INVALID_VALUE': 'miopenStatusInvalidValue',
    'CUDNN_STATUS_NOT_SUPPORTED': 'miopenStatusUnsupportedOp', 'CUDNN_STATUS_VERSION_MISMATCH': 'miopenStatusVersionMismatch',
    # descriptor types and their create / destroy calls
    'cudnnConvolutionDescriptor_t': 'miopenConvolutionDescriptor_t', 'cudnnPoolingDescriptor_t': 'miopenPoolingDescriptor_t',
    'cudnnLRNDescriptor_t': 'miopenLRNDescriptor_t', 'cudnnActivationDescriptor_t': 'miopenActivationDescriptor_t',
    'cudnnDropoutDescriptor_t': 'miopenDropoutDescriptor_t', 'cudnnRNNDescriptor_t': 'miopenRNNDescriptor_t',
    'cudnnReduceTensorDescriptor_t': 'miopenReduceTensorDescriptor_t', 'cudnnCTCLossDescriptor_t': 'miopenCTCLossDescriptor_t',
    'cudnnCreateConvolutionDescriptor': 'miopenCreateConvolutionDescriptor',
    'cudnnDestroyConvolutionDescriptor': 'miopenDestroyConvolutionDescriptor',
    'cudnnCreatePoolingDescriptor': 'miopenCreatePoolingDescriptor', 'cudnnDestroyPoolingDescriptor': 'miopenDestroyPoolingDescriptor',
    'cudnnCreateLRNDescriptor': 'miopenCreateLRNDescriptor', 'cudnnDestroyLRNDescriptor': 'miopenDestroyLRNDescriptor',
    'cudnnCreateActivationDescriptor': 'miopenCreateActivationDescriptor',
    'cudnnDestroyActivationDescriptor': 'miopenDestroyActivationDescriptor',
    'cudnnCreateDropoutDescriptor': 'miopenCreateDropoutDescriptor', 'cudnnDestroyDropoutDescriptor': 'miopenDestroyDropoutDescriptor',
    'cudnnCreateRNNDescriptor': 'miopenCreateRNNDescriptor', 'cudnnDestroyRNNDescriptor': 'miopenDestroyRNNDescriptor',
    'cudnnCreateReduceTensorDescriptor': 'miopenCreateReduceTensorDescriptor',
    'cudnnDestroyReduceTensorDescriptor': 'miopenDestroyReduceTensorDescriptor',
    'cudnnCreateCTCLossDescriptor': 'miopenCreateCTCLossDescriptor', 'cudnnDestroyCTCLossDescriptor': 'miopenDestroyCTCLossDescriptor',
    'cudnnSetConvolutionGroupCount': 'miopenSetConvolutionGroupCount',
    'cudnnDeriveBNTensorDescriptor': 'miopenDeriveBNTensorDescriptor',
    'cudnnDropoutGetStatesSize': 'miopenDropoutGetStatesSize', 'cudnnDropoutGetReserveSpaceSize': 'miopenDropoutGetReserveSpaceSize',
    # enumerations whose values mean the same thing
    'cudnnActivationMode_t': 'miopenActivationMode_t', 'CUDNN_ACTIVATION_SIGMOID': 'miopenActivationLOGISTIC',
    'CUDNN_ACTIVATION_RELU': 'miopenActivationRELU', 'CUDNN_ACTIVATION_TANH': 'miopenActivationTANH',
    'CUDNN_ACTIVATION_CLIPPED_RELU': 'miopenActivationCLIPPEDRELU', 'CUDNN_ACTIVATION_ELU': 'miopenActivationELU',
    'CUDNN_ACTIVATION_IDENTITY': 'miopenActivationPASTHRU',
    'cudnnPoolingMode_t': 'miopenPoolingMode_t', 'CUDNN_POOLING_MAX': 'miopenPoolingMax',
    'CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING': 'miopenPoolingAverageInclusive',
    'CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING': 'miopenPoolingAverage',
    'cudnnBatchNormMode_t': 'miopenBatchNormMode_t', 'CUDNN_BATCHNORM_PER_ACTIVATION': 'miopenBNPerActivation',
    'CUDNN_BATCHNORM_SPATIAL': 'miopenBNSpatial',
    'cudnnSoftmaxAlgorithm_t': 'miopenSoftmaxAlgorithm_t', 'CUDNN_SOFTMAX_FAST': 'MIOPEN_SOFTMAX_FAST',
    'CUDNN_SOFTMAX_ACCURATE': 'MIOPEN_SOFTMAX_ACCURATE', 'CUDNN_SOFTMAX_LOG': 'MIOPEN_SOFTMAX_LOG',
    'cudnnSoftmaxMode_t': 'miopenSoftmaxMode_t', 'CUDNN_SOFTMAX_MODE_INSTANCE': 'MIOPEN_SOFTMAX_MODE_INSTANCE',
    'CUDNN_SOFTMAX_MODE_CHANNEL': 'MIOPEN_SOFTMAX_MODE_CHANNEL',
    'cudnnOpTensorOp_t': 'miopenTensorOp_t', 'CUDNN_OP_TENSOR_ADD': 'miopenTensorOpAdd', 'CUDNN_OP_TENSOR_MUL': 'miopenTensorOpMul',
    'CUDNN_OP_TENSOR_MIN': 'miopenTensorOpMin', 'CUDNN_OP_TENSOR_MAX': 'miopenTensorOpMax',
    'cudnnNanPropagation_t': 'miopenNanPropagation_t', 'CUDNN_NOT_PROPAGATE_NAN': 'MIOPEN_NOT_PROPAGATE_NAN',
    'CUDNN_PROPAGATE_NAN': 'MIOPEN_PROPAGATE_NAN',
    'cudnnReduceTensorOp_t': 'miopenReduceTensorOp_t', 'CUDNN_REDUCE_TENSOR_ADD': 'MIOPEN_REDUCE_TENSOR_ADD',
    'CUDNN_REDUCE_TENSOR_MUL': 'MIOPEN_REDUCE_TENSOR_MUL', 'CUDNN_REDUCE_TENSOR_MIN': 'MIOPEN_REDUCE_TENSOR_MIN',
    'CUDNN_REDUCE_TENSOR_MAX': 'MIOPEN_REDUCE_TENSOR_MAX', 'CUDNN_REDUCE_TENSOR_AMAX': 'MIOPEN_REDUCE_TENSOR_AMAX',
    'CUDNN_REDUCE_TENSOR_AVG': 'MIOPEN_REDUCE_TENSOR_AVG', 'CUDNN_REDUCE_TENSOR_NORM1': 'MIOPEN_REDUCE_TENSOR_NORM1',
    'CUDNN_REDUCE_TENSOR_NORM2': 'MIOPEN_REDUCE_TENSOR_NORM2',
    'cudnnReduceTensorIndices_t': 'miopenReduceTensorIndices_t', 'CUDNN_REDUCE_TENSOR_NO_INDICES': 'MIOPEN_REDUCE_TENSOR_NO_INDICES',
    'CUDNN_REDUCE_TENSOR_FLATTENED_INDICES': 'MIOPEN_REDUCE_TENSOR_FLATTENED_INDICES',
    'cudnnIndicesType_t': 'miopenIndicesType_t', 'CUDNN_32BIT_INDICES': 'MIOPEN_32BIT_INDICES',
    'CUDNN_64BIT_INDICES': 'MIOPEN_64BIT_INDICES', 'CUDNN_16BIT_INDICES': 'MIOPEN_16BIT_INDICES',
    'CUDNN_8BIT_INDICES': 'MIOPEN_8BIT_INDICES',
    'cudnnRNNMode_t': 'miopenRNNMode_t', 'CUDNN_RNN_RELU': 'miopenRNNRELU', 'CUDNN_RNN_TANH': 'miopenRNNTANH',
    'CUDNN_LSTM': 'miopenLSTM', 'CUDNN_GRU': 'miopenGRU',
    'cudnnDirectionMode_t': 'miopenRNNDirectionMode_t', 'CUDNN_UNIDIRECTIONAL': 'miopenRNNunidirection',
    'CUDNN_BIDIRECTIONAL': 'miopenRNNbidirection', 'cudnnRNNInputMode_t': 'miopenRNNInputMode_t',
    'CUDNN_LINEAR_INPUT': 'miopenRNNlinear', 'CUDNN_SKIP_INPUT': 'miopenRNNskip',
    'cudnnLRNMode_t': 'miopenLRNMode_t', 'CUDNN_LRN_CROSS_CHANNEL_DIM1': 'miopenLRNCrossChannel',
    'cudnnConvolutionMode_t': 'miopenConvolutionMode_t', 'CUDNN_CROSS_CORRELATION': 'miopenConvolution',
    'cudnnCTCLossAlgo_t': 'miopenCTCLossAlgo_t', 'CUDNN_CTC_LOSS_ALGO_DETERMINISTIC': 'MIOPEN_CTC_LOSS_ALGO_DETERMINISTIC',
    'cudnnTensorFormat_t': 'miopenTensorLayout_t', 'CUDNN_TENSOR_NCHW': 'miopenTensorNCHW', 'CUDNN_TENSOR_NHWC': 'miopenTensorNHWC',
}
CUDNN_SINCE = {'CUDNN_STATUS_VERSION_MISMATCH': '5.4', 'cudnnTensorFormat_t': '5.3', 'CUDNN_TENSOR_NCHW': '5.3',
               'CUDNN_TENSOR_NHWC': '5.3'}
CUDNN_NOTES = {
    'cudnnCreate': 'MIOpen also has miopenCreateWithStream',
    'CUDNN_CROSS_CORRELATION': 'what MIOpen calls convolution is cuDNN\'s cross-correlation',
    'cudnnTensorFormat_t': 'MIOpen takes the layout only in miopenSetNdTensorDescriptorWithLayout / miopenSet4dTensorDescriptorEx strides, not in miopenSet4dTensorDescriptor',
    'CUDNN_TENSOR_NHWC': 'NHWC coverage in MIOpen is narrower than NCHW: check each primitive',
    'cudnnGetTensor4dDescriptor': 'same argument order (descriptor, data type, n, c, h, w, strides)',
    'cudnnSetTensor': 'same argument order; value points to a host scalar of the tensor type',
    'cudnnScaleTensor': 'same argument order',
    'cudnnDeriveBNTensorDescriptor': 'same argument order',
    'cudnnActivationDescriptor_t': 'set it with miopenSetActivationDescriptor(desc, mode, alpha, beta, gamma): different parameters',
    'cudnnConvolutionDescriptor_t': 'set it with miopenInitConvolutionDescriptor / miopenInitConvolutionNdDescriptor',
    'cudnnPoolingDescriptor_t': 'set it with miopenSet2dPoolingDescriptor (no NaN-propagation argument)',
    'cudnnDropoutDescriptor_t': 'set it with miopenSetDropoutDescriptor (extra use_mask / state_evo / rng_mode arguments)',
    'cudnnRNNDescriptor_t': 'set it with miopenSetRNNDescriptor / miopenSetRNNDescriptor_V2 (different parameter order)',
    'CUDNN_DATA_DOUBLE': 'few MIOpen primitives accept double',
    'CUDNN_STATUS_NOT_SUPPORTED': 'closest MIOpen status',
}
CUDNN_ALT = {
    'cudnnConvolutionForward': 'miopenConvolutionForward (needs workspace from miopenConvolutionForwardGetWorkSpaceSize and a prior miopenFindConvolutionForwardAlgorithm)',
    'cudnnConvolutionBackwardData': 'miopenConvolutionBackwardData (after miopenConvolutionBackwardDataGetWorkSpaceSize and miopenFindConvolutionBackwardDataAlgorithm)',
    'cudnnConvolutionBackwardFilter': 'miopenConvolutionBackwardWeights (after miopenConvolutionBackwardWeightsGetWorkSpaceSize and miopenFindConvolutionBackwardWeightsAlgorithm)',
    'cudnnConvolutionBackwardBias': 'miopenConvolutionBackwardBias',
    'cudnnConvolutionBiasActivationForward': 'miopenConvolutionBiasActivationForward (ROCm 5.4+, fewer fusions) or the MIOpen fusion API',
    'cudnnFindConvolutionForwardAlgorithm': 'miopenFindConvolutionForwardAlgorithm (runs the candidates on real buffers, returns miopenConvAlgoPerf_t)',
    'cudnnFindConvolutionForwardAlgorithmEx': 'miopenFindConvolutionForwardAlgorithm',
    'cudnnFindConvolutionBackwardDataAlgorithm': 'miopenFindConvolutionBackwardDataAlgorithm',
    'cudnnFindConvolutionBackwardDataAlgorithmEx': 'miopenFindConvolutionBackwardDataAlgorithm',
    'cudnnFindConvolutionBackwardFilterAlgorithm': 'miopenFindConvolutionBackwardWeightsAlgorithm',
    'cudnnFindConvolutionBackwardFilterAlgorithmEx': 'miopenFindConvolutionBackwardWeightsAlgorithm',
    'cudnnGetConvolutionForwardAlgorithm_v7': 'miopenFindConvolutionForwardAlgorithm (MIOpen has no heuristic-only query in the classic API; see the Find 2.0 API miopenFindSolutions)',
    'cudnnGetConvolutionBackwardDataAlgorithm_v7': 'miopenFindConvolutionBackwardDataAlgorithm',
    'cudnnGetConvolutionBackwardFilterAlgorithm_v7': 'miopenFindConvolutionBackwardWeightsAlgorithm',
    'cudnnGetConvolutionForwardWorkspaceSize': 'miopenConvolutionForwardGetWorkSpaceSize (argument order: handle, wDesc, xDesc, convDesc, yDesc, size)',
    'cudnnGetConvolutionBackwardDataWorkspaceSize': 'miopenConvolutionBackwardDataGetWorkSpaceSize',
    'cudnnGetConvolutionBackwardFilterWorkspaceSize': 'miopenConvolutionBackwardWeightsGetWorkSpaceSize',
    'cudnnSetConvolution2dDescriptor': 'miopenInitConvolutionDescriptor (mode first, no compute type; set groups with miopenSetConvolutionGroupCount)',
    'cudnnSetConvolutionNdDescriptor': 'miopenInitConvolutionNdDescriptor',
    'cudnnGetConvolution2dDescriptor': 'miopenGetConvolutionDescriptor',
    'cudnnGetConvolution2dForwardOutputDim': 'miopenGetConvolutionForwardOutputDim',
    'cudnnGetConvolutionNdForwardOutputDim': 'miopenGetConvolutionNdForwardOutputDim',
    'cudnnSetConvolutionMathType': 'nothing: MIOpen chooses tensor-core (XDLOPS) kernels itself',
    'cudnnCreateFilterDescriptor': 'miopenCreateTensorDescriptor (MIOpen describes filters with tensor descriptors)',
    'cudnnDestroyFilterDescriptor': 'miopenDestroyTensorDescriptor',
    'cudnnSetFilter4dDescriptor': 'miopenSet4dTensorDescriptor (k, c, h, w as n, c, h, w; no format argument)',
    'cudnnSetFilterNdDescriptor': 'miopenSetTensorDescriptor',
    'cudnnSetTensor4dDescriptor': 'miopenSet4dTensorDescriptor (no format argument: NCHW) or miopenSetNdTensorDescriptorWithLayout',
    'cudnnSetTensor4dDescriptorEx': 'miopenSet4dTensorDescriptorEx (ROCm 5.3+)',
    'cudnnSetTensorNdDescriptor': 'miopenSetTensorDescriptor (dimensions before strides)',
    'cudnnGetTensorNdDescriptor': 'miopenGetTensorDescriptor',
    'cudnnGetTensorSizeInBytes': 'miopenGetTensorNumBytes',
    'cudnnAddTensor': 'miopenOpTensor with miopenTensorOpAdd (alpha1/alpha2/beta scaling differs)',
    'cudnnOpTensor': 'miopenOpTensor (the operation is an argument, no op-tensor descriptor)',
    'cudnnTransformTensor': 'miopenTransformTensor (fewer layout conversions supported)',
    'cudnnActivationForward': 'miopenActivationForward (descriptor set with miopenSetActivationDescriptor)',
    'cudnnActivationBackward': 'miopenActivationBackward',
    'cudnnSetActivationDescriptor': 'miopenSetActivationDescriptor(desc, mode, alpha, beta, gamma): no NaN option, coefficient meaning differs per mode',
    'cudnnGetActivationDescriptor': 'miopenGetActivationDescriptor',
    'cudnnSoftmaxForward': 'miopenSoftmaxForward_V2 (algorithm and mode are the last arguments)',
    'cudnnSoftmaxBackward': 'miopenSoftmaxBackward_V2 (algorithm and mode are the last arguments)',
    'cudnnPoolingForward': 'miopenPoolingForward (extra do_backward flag and workspace for max pooling)',
    'cudnnPoolingBackward': 'miopenPoolingBackward (needs the workspace written by miopenPoolingForward)',
    'cudnnSetPooling2dDescriptor': 'miopenSet2dPoolingDescriptor (no NaN-propagation argument)',
    'cudnnSetPoolingNdDescriptor': 'miopenSetNdPoolingDescriptor',
    'cudnnGetPooling2dDescriptor': 'miopenGet2dPoolingDescriptor',
    'cudnnGetPooling2dForwardOutputDim': 'miopenGetPoolingForwardOutputDim',
    'cudnnGetPoolingNdForwardOutputDim': 'miopenGetPoolingNdForwardOutputDim',
    'cudnnBatchNormalizationForwardTraining': 'miopenBatchNormalizationForwardTraining (same argument order; check the running-variance convention)',
    'cudnnBatchNormalizationForwardInference': 'miopenBatchNormalizationForwardInference (same argument order)',
    'cudnnBatchNormalizationBackward': 'miopenBatchNormalizationBackward (same argument order)',
    'cudnnLRNCrossChannelForward': 'miopenLRNForward (extra do_backward flag and workspace)',
    'cudnnLRNCrossChannelBackward': 'miopenLRNBackward',
    'cudnnSetLRNDescriptor': 'miopenSetLRNDescriptor (mode is an extra first parameter)',
    'cudnnGetLRNDescriptor': 'miopenGetLRNDescriptor',
    'cudnnSetDropoutDescriptor': 'miopenSetDropoutDescriptor (extra use_mask, state_evo, rng_mode arguments)',
    'cudnnGetDropoutDescriptor': 'miopenGetDropoutDescriptor',
    'cudnnRestoreDropoutDescriptor': 'miopenRestoreDropoutDescriptor (extra arguments)',
    'cudnnDropoutForward': 'miopenDropoutForward (extra noise_shape descriptor)',
    'cudnnDropoutBackward': 'miopenDropoutBackward (extra noise_shape descriptor)',
    'cudnnReduceTensor': 'miopenReduceTensor',
    'cudnnSetReduceTensorDescriptor': 'miopenSetReduceTensorDescriptor',
    'cudnnGetReduceTensorDescriptor': 'miopenGetReduceTensorDescriptor',
    'cudnnGetReductionWorkspaceSize': 'miopenGetReductionWorkspaceSize',
    'cudnnGetReductionIndicesSize': 'miopenGetReductionIndicesSize',
    'cudnnCTCLoss': 'miopenCTCLoss (labels and lengths on the host, different workspace query)',
    'cudnnGetCTCLossWorkspaceSize': 'miopenGetCTCLossWorkspaceSize',
    'cudnnSetCTCLossDescriptor': 'miopenSetCTCLossDescriptor',
    'cudnnGetCTCLossDescriptor': 'miopenGetCTCLossDescriptor',
    'cudnnRNNForward': 'miopenRNNForward (ROCm 6.0+ sequence-tensor API) or miopenRNNForwardTraining / miopenRNNForwardInference',
    'cudnnRNNForwardTraining': 'miopenRNNForwardTraining',
    'cudnnRNNForwardInference': 'miopenRNNForwardInference',
    'cudnnRNNBackwardData': 'miopenRNNBackwardData',
    'cudnnRNNBackwardData_v8': 'miopenRNNBackwardSeqData (ROCm 6.0+)',
    'cudnnRNNBackwardWeights': 'miopenRNNBackwardWeights',
    'cudnnRNNBackwardWeights_v8': 'miopenRNNBackwardWeightsSeqTensor (ROCm 6.0+)',
    'cudnnSetRNNDescriptor_v6': 'miopenSetRNNDescriptor_V2',
    'cudnnSetRNNDescriptor_v8': 'miopenSetRNNDescriptor_V2 (fewer options)',
    'cudnnGetRNNDescriptor_v8': 'miopenGetRNNDescriptor_V2',
    'cudnnGetRNNWorkspaceSize': 'miopenGetRNNWorkspaceSize',
    'cudnnGetRNNTrainingReserveSize': 'miopenGetRNNTrainingReserveSize',
    'cudnnGetRNNParamsSize': 'miopenGetRNNParamsSize',
    'cudnnGetRNNTempSpaceSizes': 'miopenGetRNNTempSpaceSizes (ROCm 6.0+)',
    'cudnnGetRNNWeightSpaceSize': 'miopenGetRNNParamsSize',
    'cudnnNormalizationForwardTraining': 'miopenBatchNormalizationForwardTraining or miopenLayerNormForward',
    'cudnnNormalizationForwardInference': 'miopenBatchNormalizationForwardInference',
    'cudnnNormalizationBackward': 'miopenBatchNormalizationBackward',
    'cudnnGetVersion': 'miopenGetVersion (MIOpen version triple)',
    'cudnnGetProperty': 'miopenGetVersion',
    'cudnnFilterDescriptor_t': 'miopenTensorDescriptor_t (filters are tensors in MIOpen)',
    'cudnnConvolutionFwdAlgo_t': 'miopenConvFwdAlgorithm_t (different algorithm set; values only come from miopenFind*)',
    'cudnnConvolutionBwdDataAlgo_t': 'miopenConvBwdDataAlgorithm_t',
    'cudnnConvolutionBwdFilterAlgo_t': 'miopenConvBwdWeightsAlgorithm_t',
    'cudnnConvolutionFwdAlgoPerf_t': 'miopenConvAlgoPerf_t',
    'cudnnConvolutionBwdDataAlgoPerf_t': 'miopenConvAlgoPerf_t',
    'cudnnConvolutionBwdFilterAlgoPerf_t': 'miopenConvAlgoPerf_t',
    'CUDNN_CONVOLUTION': 'none: MIOpen implements cross-correlation only (flip the filter yourself)',
}


def build_cudnn():
    t = Table('cudnn', 'cuDNN API', 'MIOpen', BASE, CUDNN_HEADER_COMMENT)
    inc = glob.glob(os.path.join(INP, 'old', 'nvidia_cudnn_cu13', 'nvidia', '*', 'include', 'cudnn*.h'))
    inc = [p for p in inc if not re.search(r'_v9\.h$', p)]
    names = cuda_names_from(inc, r'(cudnn|CUDNN_)')
    names = {k: v for k, v in names.items() if not re.search(r'^CUDNN_(MAJOR|MINOR|PATCHLEVEL|VERSION|DEPRECATED|API|WINAPI|H_|ADV|CNN|OPS|GRAPH|BACKEND_H|SEMI|VERSION_)|_H_?$|DEPRECATED', k) or k in ('CUDNN_VERSION', 'CUDNN_MAJOR', 'CUDNN_MINOR', 'CUDNN_PATCHLEVEL')}
    for k in CUDNN_FAITHFUL:
        names.setdefault(k, 'type' if k.endswith('_t') or k == 'cudnnContext' else ('enum' if k.startswith('CUDNN_') else 'function'))
    for k in CUDNN_ALT:
        names.setdefault(k, 'type' if k.endswith('_t') else ('enum' if k.startswith('CUDNN_') else 'function'))
    backend_ok = re.compile(
        r'^CUDNN_(ATTR_(CONVOLUTION|ENGINECFG|ENGINEHEUR|ENGINE|EXECUTION_PLAN|INTERMEDIATE_INFO|KNOB_CHOICE|KNOB_INFO|'
        r'LAYOUT_INFO|MATMUL|OPERATIONGRAPH|OPERATION_(BN_BWD_WEIGHTS|BN_FINALIZE|CONCAT|CONVOLUTION_(BWD_DATA|BWD_FILTER|FORWARD)|'
        r'GENSTATS|MATMUL|NORM_BWD|NORM_FWD|POINTWISE|REDUCTION|RESAMPLE_(BWD|FWD)|RESHAPE|RNG|SIGNAL)|POINTWISE|REDUCTION|RESAMPLE|RNG|'
        r'TENSOR|VARIANT_PACK)_\w+|BACKEND_\w+_DESCRIPTOR|TYPE_\w+|POINTWISE_\w+|HEUR_MODE\w*|HEUR_MODES_COUNT|RNG_DISTRIBUTION_\w+)$')
    backend_no = re.compile(r'DEVICEPROP|KERNEL_CACHE|IS_DYNAMIC_SHAPE|IS_SAME_TOPOLOGY|BLOCK_SCALE|BAND_MATRIX|BAND_MAX|'
                            r'PAGED_CACHE|SDPA|IS_DETERMINISTIC|SHARED_MEMORY_USED|ENGINECFG_WORKSPACE_SIZE|BN_BWD_WEIGHTS_DESCRIPTOR|'
                            r'BN_FINALIZE_STATISTICS_DESCRIPTOR|POINTWISE_ATAN2|MOE|GROUPED|ATTN|BLOCK_SIZE|_INT4|UINT|FP4|FP8_E8|'
                            r'CLUSTER|SHARED_MEMORY_LIMIT|CUDA_GRAPH|CONSTANT_VALUE|RAGGED_OFFSET_MULTIPLIER|OVERRIDE|'
                            r'DIAGONAL_BAND|ROPE|SLICE|SOFTMAX|TRANSPOSE|REDUCTION_DIMS|GROUP_OFFSET|INIT_VALUES|SUBGRAPH|'
                            r'RESHAPE_MODE|OPERATIONGRAPH_MODE|FLOOR_MOD')
    backend_fns = {'cudnnBackendCreateDescriptor', 'cudnnBackendDestroyDescriptor', 'cudnnBackendExecute',
                   'cudnnBackendFinalize', 'cudnnBackendGetAttribute', 'cudnnBackendSetAttribute',
                   'cudnnBackendAttributeName_t', 'cudnnBackendAttributeType_t', 'cudnnBackendDescriptorType_t',
                   'cudnnBackendDescriptor_t', 'cudnnBackendHeurMode_t', 'cudnnPointwiseMode_t', 'cudnnRngDistribution_t'}
    for c, kind in sorted(names.items()):
        if c.startswith(('CUDNN_ATTR', 'CUDNN_BACKEND', 'CUDNN_TYPE_', 'CUDNN_POINTWISE', 'CUDNN_HEUR', 'CUDNN_RNG_')) or \
                c.startswith('cudnnBackend') or c in backend_fns:
            g = 'backend (graph) API'
        elif kind == 'function':
            g = 'functions'
        elif kind == 'type':
            g = 'types'
        else:
            g = 'enumerators and macros'
        if c in CUDNN_FAITHFUL:
            t.add(g, c, kind, hip=CUDNN_FAITHFUL[c], since=CUDNN_SINCE.get(c), note=CUDNN_NOTES.get(c))
            continue
        if c in backend_fns or (backend_ok.match(c) and not backend_no.search(c)):
            hip = ('miopen' + c[len('cudnn'):]) if c.startswith('cudnn') else 'MIOPEN_' + c[len('CUDNN_'):]
            since = '6.3' if 'RESHAPE' in c else '6.2'
            t.add(g, c, kind, hip=hip, status='experimental', since=since,
                  note='MIOpen graph API (ROCm 6.2+) mirrors the cuDNN backend names but finalizes far fewer operation graphs; check miopenBackendFinalize')
            continue
        alt = CUDNN_ALT.get(c)
        if alt is None:
            if re.search(r'RNN|Rnn', c):
                alt = 'the MIOpen RNN API (miopenRNN*, miopenSetRNNDescriptor_V2)'
            elif re.search(r'FusedOps|FUSED|PARAM_|PTR_|SCALAR_', c):
                alt = 'the MIOpen fusion API (miopenCreateFusionPlan, miopenCreateOp*Forward, miopenCompileFusionPlan)'
            elif re.search(r'Attn|ATTN|SeqData|SEQDATA|MH_ATTN', c):
                alt = 'miopenMhaForward / MIOpen graph API attention (newer ROCm), or composed GEMMs'
            elif re.search(r'Algorithm|ALGO|Perf', c):
                alt = 'the MIOpen Find step (miopenFindConvolution*Algorithm or miopenFindSolutions)'
            elif re.search(r'SpatialTf|Sampler|SAMPLER', c):
                alt = 'no spatial-transformer primitive in MIOpen: write a kernel'
            elif re.search(r'VersionCheck|Cudart|MaxDeviceVersion', c):
                alt = 'miopenGetVersion'
            elif re.search(r'Callback|Debug|SEV_|Severity|ErrQuery|ERRQUERY|LastError|QueryRuntimeError', c):
                alt = 'MIOPEN_LOG_LEVEL / MIOPEN_ENABLE_LOGGING environment variables and the returned miopenStatus_t'
        t.add(g, c, kind, status='unsupported', alt=alt)
    t.header('cudnn.h', 'miopen/miopen.h')
    for h in ('cudnn_ops.h', 'cudnn_cnn.h', 'cudnn_adv.h', 'cudnn_graph.h', 'cudnn_backend.h', 'cudnn_version.h',
              'cudnn_ops_infer.h', 'cudnn_ops_train.h', 'cudnn_cnn_infer.h', 'cudnn_cnn_train.h', 'cudnn_adv_infer.h',
              'cudnn_adv_train.h'):
        t.header(h, 'miopen/miopen.h')
    return t


CUDNN_HEADER_COMMENT = '''
cuDNN -> MIOpen.  Not a rename: see rules/docs/cudnn.md.  Only faithful one-to-one ports are
"supported": the handle, stream, error string, tensor / descriptor lifecycle calls, a few tensor
utilities with identical argument lists, status codes and enumerations whose values mean the same.
Everything that computes (convolutions, pooling, softmax, normalization, RNNs, dropout, ...) or
configures a descriptor with different parameters is "unsupported" with `alt` naming the MIOpen
function to port to by hand.  The backend (graph) API names are "experimental": MIOpen 6.2+ mirrors
them but supports far fewer graphs.
CUDA names: the cudnn*.h headers of cuDNN 9.x (nvidia-cudnn-cu13) plus the cuDNN 7/8 names that
have an MIOpen counterpart.  MIOpen names checked against HIPIFY's cuDNN table and the MIOpen
API reference.  since: first ROCm release, floored at 5.2.'''


BUILDERS = ['cublas', 'rocblas', 'curand', 'cufft', 'cusparse', 'cusolver', 'nvrtc', 'nvtx', 'nccl', 'cub', 'thrust',
            'cooperative_groups', 'cudnn']


def main(argv):
    wanted = argv or BUILDERS
    built = {}
    for fam in BUILDERS:
        if fam not in wanted and not (fam == 'cublas' and 'rocblas' in wanted):
            continue
        if fam == 'rocblas':
            t = build_rocblas(built.get('cublas') or build_cublas())
        elif fam == 'cooperative_groups':
            t = build_cg()
        else:
            t = globals()['build_' + fam]()
        built[fam] = t
        if fam in wanted:
            path = t.write()
            c = t.counts()
            print('%-20s %s' % (os.path.relpath(path, ROOT), ', '.join('%s %d' % kv for kv in sorted(c.items()))))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
