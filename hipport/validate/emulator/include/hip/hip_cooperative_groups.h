// hipport wave emulator: cooperative groups (block, tiles, coalesced groups).
// Tiles map onto the wave: a tile of N lanes is an aligned width-N segment,
// so tile shuffles are __shfl* with width N.  Grid-wide sync is unsupported.
#pragma once
#include "hip_runtime.h"

namespace cooperative_groups {

namespace detail {
inline unsigned block_rank() { return (unsigned)::hipemu::detail::g.cur->linear; }
inline unsigned block_size() { return (unsigned)::hipemu::detail::g.nthreads; }
}  // namespace detail

class thread_group {
 public:
  enum kind_t : unsigned { k_block, k_tile, k_coalesced, k_grid };
  unsigned size() const {
    switch (kind_) {
      case k_block: return detail::block_size();
      case k_grid: return detail::block_size() * ::hipemu::detail::g.gdim.x *
                          ::hipemu::detail::g.gdim.y * ::hipemu::detail::g.gdim.z;
      case k_coalesced: return (unsigned)__builtin_popcountll(mask_);
      default: return size_;
    }
  }
  unsigned num_threads() const { return size(); }
  unsigned thread_rank() const {
    switch (kind_) {
      case k_block: return detail::block_rank();
      case k_grid: {
        const auto& g = ::hipemu::detail::g;
        unsigned b = g.bidx.x + g.gdim.x * (g.bidx.y + g.gdim.y * g.bidx.z);
        return b * detail::block_size() + detail::block_rank();
      }
      case k_coalesced: return (unsigned)__builtin_popcountll(mask_ & __lanemask_lt());
      default: return detail::block_rank() % size_;
    }
  }
  bool is_valid() const { return true; }
  void sync(::hipemu::Site s = ::hipemu::Site()) const {
    switch (kind_) {
      case k_block: ::hipemu::detail::barrier(0, 0, "thread_block::sync", s); break;
      case k_grid:
        ::hipemu::detail::unsupported("grid-wide synchronisation (grid_group::sync)", s);
      default:
        ::hipemu::detail::wave_op(::hipemu::detail::OP_SYNC, "tile::sync", 0, 0, 0, 0, 0, s);
    }
  }

 protected:
  thread_group(kind_t k, unsigned size, unsigned long long mask = 0)
      : kind_(k), size_(size), mask_(mask) {}
  kind_t kind_;
  unsigned size_;
  unsigned long long mask_;
};

class thread_block : public thread_group {
 public:
  thread_block() : thread_group(k_block, 0) {}
  dim3 group_index() const { return dim3(::hipemu::detail::g.bidx); }
  dim3 thread_index() const { return dim3(::hipemu::detail::g.cur->tid); }
  dim3 group_dim() const { return ::hipemu::detail::g.bdim; }
  dim3 dim_threads() const { return ::hipemu::detail::g.bdim; }
};
inline thread_block this_thread_block() { return thread_block(); }

class grid_group : public thread_group {
 public:
  grid_group() : thread_group(k_grid, 0) {}
  // Valid in a kernel started by hipLaunchCooperativeKernel (its sync() is still unsupported:
  // blocks run one after another).
  bool is_valid() const { return ::hipemu::detail::g.cooperative; }
  dim3 group_dim() const { return ::hipemu::detail::g.gdim; }
};
inline grid_group this_grid() { return grid_group(); }

// A tile with run-time size (tiled_partition(parent, n)); also the base of
// thread_block_tile<N>.
class tiled_group : public thread_group {
 public:
  tiled_group(unsigned n, unsigned meta_rank, unsigned meta_size)
      : thread_group(k_tile, n), meta_rank_(meta_rank), meta_size_(meta_size) {}
  unsigned meta_group_rank() const { return meta_rank_; }
  unsigned meta_group_size() const { return meta_size_; }
  template <class T>
  T shfl(T v, int src, ::hipemu::Site s = ::hipemu::Site()) const {
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL, "tile::shfl", v, src,
                                     (int)size_, 0, 0, s);
  }
  template <class T>
  T shfl_up(T v, unsigned d, ::hipemu::Site s = ::hipemu::Site()) const {
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL_UP, "tile::shfl_up", v, (int)d,
                                     (int)size_, 0, 0, s);
  }
  template <class T>
  T shfl_down(T v, unsigned d, ::hipemu::Site s = ::hipemu::Site()) const {
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL_DOWN, "tile::shfl_down", v,
                                     (int)d, (int)size_, 0, 0, s);
  }
  template <class T>
  T shfl_xor(T v, int m, ::hipemu::Site s = ::hipemu::Site()) const {
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL_XOR, "tile::shfl_xor", v, m,
                                     (int)size_, 0, 0, s);
  }
  // Bits of this tile's lanes, bit i = tile rank i (unsigned int in CUDA).
  ::hipemu::lane_mask_t ballot(int pred, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned long long act;
    return (::hipemu::lane_mask_t)tile_bits(::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "tile::ballot",
                                               pred != 0, 0, 0, 0, 0, s, &act));
  }
  int any(int pred, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned long long act;
    return tile_bits(::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "tile::any",
                                               pred != 0, 0, 0, 0, 0, s, &act)) != 0;
  }
  int all(int pred, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned long long act;
    unsigned long long b = ::hipemu::detail::wave_op(::hipemu::detail::OP_BALLOT, "tile::all",
                                                     pred != 0, 0, 0, 0, 0, s, &act);
    return tile_bits(b) == tile_bits(act);
  }
  // Ranks of the tile's lanes holding the same value (CUDA, sm_70+); match_all: all of them
  // when every lane of the tile holds it (pred 1), else 0.
  template <class T>
  ::hipemu::lane_mask_t match_any(T v, ::hipemu::Site s = ::hipemu::Site()) const {
    return (::hipemu::lane_mask_t)tile_bits(::hipemu::detail::wave_op(
        ::hipemu::detail::OP_MATCH_ANY, "tile::match_any", ::hipemu::detail::to_bits(v), 0, 0,
        lanes(), ::hipemu::detail::FL_MASK, s));
  }
  template <class T>
  ::hipemu::lane_mask_t match_all(T v, int& pred, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned long long ok = 0;
    unsigned long long r = ::hipemu::detail::wave_op(
        ::hipemu::detail::OP_MATCH_ALL, "tile::match_all", ::hipemu::detail::to_bits(v), 0, 0,
        lanes(), ::hipemu::detail::FL_MASK, s, &ok);
    pred = (int)ok;
    return (::hipemu::lane_mask_t)tile_bits(r);
  }

 protected:
  // The wave lanes of this lane's tile.
  unsigned long long lanes() const {
    unsigned long long m = size_ >= 64 ? ~0ull : ((1ull << size_) - 1);
    return m << (__lane_id() & ~(size_ - 1));
  }
  unsigned long long tile_bits(unsigned long long wave_bits) const {
    unsigned base = __lane_id() & ~(size_ - 1);
    unsigned long long m = size_ >= 64 ? ~0ull : ((1ull << size_) - 1);
    return (wave_bits >> base) & m;
  }
  unsigned meta_rank_, meta_size_;
};

template <unsigned N, class ParentT = void>
class thread_block_tile : public tiled_group {
  static_assert(N > 0 && (N & (N - 1)) == 0 && N <= (unsigned)HIPEMU_WAVE,
                "thread_block_tile<N>: N must be a power of two no larger than the wave size");

 public:
  thread_block_tile(unsigned meta_rank, unsigned meta_size)
      : tiled_group(N, meta_rank, meta_size) {}
  static constexpr unsigned size() { return N; }
  static constexpr unsigned num_threads() { return N; }
  unsigned thread_rank() const { return detail::block_rank() & (N - 1); }
};

// Tiles of a block (or of a tile: ranks follow the block-linear order).
template <unsigned N, class P>
inline thread_block_tile<N> tiled_partition(const P& parent) {
  unsigned pr = parent.thread_rank(), ps = parent.size();
  return thread_block_tile<N>(pr / N, (ps + N - 1) / N);
}
inline tiled_group tiled_partition(const thread_group& parent, unsigned n,
                                   ::hipemu::Site s = ::hipemu::Site()) {
  if (n == 0 || (n & (n - 1)) != 0 || n > (unsigned)HIPEMU_WAVE)
    ::hipemu::detail::unsupported(
        "tiled_partition: tile size must be a power of two no larger than the wave size", s);
  unsigned pr = parent.thread_rank(), ps = parent.size();
  return tiled_group(n, pr / n, (ps + n - 1) / n);
}

// The lanes of the wave that are active at this call.
class coalesced_group : public thread_group {
 public:
  explicit coalesced_group(unsigned long long m) : thread_group(k_coalesced, 0, m) {}
  unsigned long long mask() const { return mask_; }
  // This lane's rank in the group, and the lane of rank r (this lane when r is out of range).
  unsigned rank() const { return (unsigned)__builtin_popcountll(mask_ & __lanemask_lt()); }
  int rank_lane(int r) const {
    if (r < 0 || r >= (int)size()) return (int)__lane_id();
    unsigned long long m = mask_;
    for (; r; --r) m &= m - 1;
    return __builtin_ctzll(m);
  }
  template <class T>
  T shfl(T v, int rank, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned long long m = mask_;  // lane of the rank-th active lane
    for (unsigned r = (unsigned)rank % size(); r; --r) m &= m - 1;
    int lane = __builtin_ctzll(m);
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL, "coalesced_group::shfl", v,
                                     lane, HIPEMU_WAVE, 0, 0, s);
  }
  // shfl_down / shfl_up: the member `delta` ranks above / below; past the group's end a
  // lane keeps its own value (as HIP's coalesced_group does).
  template <class T>
  T shfl_down(T v, unsigned delta, ::hipemu::Site s = ::hipemu::Site()) const {
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL, "coalesced_group::shfl_down", v,
                                     rank_lane((int)rank() + (int)delta), HIPEMU_WAVE, 0, 0, s);
  }
  template <class T>
  T shfl_up(T v, unsigned delta, ::hipemu::Site s = ::hipemu::Site()) const {
    return ::hipemu::detail::shfl_op(::hipemu::detail::OP_SHFL, "coalesced_group::shfl_up", v,
                                     rank_lane((int)rank() - (int)delta), HIPEMU_WAVE, 0, 0, s);
  }
  ::hipemu::lane_mask_t ballot(int pred, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned long long b = ::hipemu::detail::wave_op(
        ::hipemu::detail::OP_BALLOT, "coalesced_group::ballot", pred != 0, 0, 0, 0, 0, s);
    unsigned long long r = 0;  // compress to rank order
    int k = 0;
    for (unsigned long long m = mask_; m; m &= m - 1, ++k)
      if (b >> __builtin_ctzll(m) & 1) r |= 1ull << k;
    return (::hipemu::lane_mask_t)r;
  }
  int any(int pred, ::hipemu::Site s = ::hipemu::Site()) const { return ballot(pred, s) != 0; }
  int all(int pred, ::hipemu::Site s = ::hipemu::Site()) const {
    unsigned n = size();
    return ballot(pred, s) == (n >= 64 ? ~0ull : (1ull << n) - 1);
  }
};
inline coalesced_group coalesced_threads(::hipemu::Site s = ::hipemu::Site()) {
  return coalesced_group(__activemask(s));
}

template <class G>
inline void sync(const G& g, ::hipemu::Site s = ::hipemu::Site()) {
  g.sync(s);
}
template <class G>
inline unsigned thread_rank(const G& g) { return g.thread_rank(); }
template <class G>
inline unsigned group_size(const G& g) { return g.size(); }

}  // namespace cooperative_groups
