// ORC Integer RLE v1 and v2 decoders for indexed `.wz` chunks (layout 2): one lane per
// sub-block, each decoding its sub-block's stream serially with the CPU's checks in the CPU's
// order (`lane_decode_unit` in orc_lanes.cuh).
#include "orc/orc_lanes.cuh"

// Threads per block (any multiple of 32 works; the host launches this many).
#define ORC_LANES_THREADS 128u

template <typename T, bool SIGNED, bool V2>
__device__ __forceinline__ void orc_lanes_body(ORC_KERNEL_PARAMS) {
    (void)next_chunk;
    T* out_t = reinterpret_cast<T*>(out);
    const u32 stride = gridDim.x * blockDim.x;
    for (u32 unit = blockIdx.x * blockDim.x + threadIdx.x; unit < n_chunks; unit += stride) {
        status[unit] = lane_decode_unit<T, SIGNED, V2>(in, chunks[unit], out_t);
    }
}

template <typename T, bool SIGNED>
__device__ void lanes_v1(ORC_KERNEL_PARAMS) {
    orc_lanes_body<T, SIGNED, false>(ORC_KERNEL_ARGS);
}

template <typename T, bool SIGNED>
__device__ void lanes_v2(ORC_KERNEL_PARAMS) {
    orc_lanes_body<T, SIGNED, true>(ORC_KERNEL_ARGS);
}

ORC_INT_KERNELS(orc_rle_v1_lanes, lanes_v1)
ORC_INT_KERNELS(orc_rle_v2_lanes, lanes_v2)
