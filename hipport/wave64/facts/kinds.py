"""Value kinds: the bit flags that say what a value is (thread index, lane id, warp id, wave mask,
warp-size constant ...). `values` gives an expression its kinds and `flow` follows them through
the function; rules test them (`facts.kinds(node, fn) & LANES`)."""

TID = 1 << 0  # thread index: threadIdx.*, linearized or global thread ids
BDIM = 1 << 1  # blockDim-derived
LANE32 = 1 << 2  # lane of a 32-lane warp: tid & 31, tid % 32, tid % WARP_SIZE(32)
LANEHW = 1 << 3  # hardware lane: __lane_id(), tid % warpSize
LANEN = 1 << 4  # a lane whose width follows the strategy: PTX %laneid, tile.thread_rank()
WARP32 = 1 << 5  # warp index: tid >> 5, tid / 32
WARPHW = 1 << 6  # tid / warpSize
NWARP32 = 1 << 7  # warps per block: blockDim.x / 32
NWARPHW = 1 << 8
MASK = 1 << 9  # a wave mask: ballot, activemask, match, lanemask results and masks derived from them
SHIFTMASK = 1 << 10  # a lane mask built by shifting by a lane number (1u << lane)
WS32 = 1 << 11  # a warp-size constant equal to 32
WSRT = 1 << 12  # warpSize
WS64 = 1 << 13  # a warp-size constant equal to 64
LANEREL = 1 << 14  # lane +/- k
BID = 1 << 15  # blockIdx

LANES = LANE32 | LANEHW | LANEN
WARPS = WARP32 | WARPHW
