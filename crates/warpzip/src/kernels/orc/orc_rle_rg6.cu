// The RLEv2 block-per-row-group kernels of orc_columns.cuh built for 6 blocks an SM
// (`orc_rg6_*`), for batches of more row groups than one wave of the 5-block build in
// orc_rle.cu. A module of their own, compiled on first use, so that decoding files of few row
// groups never pays for it.
#define ORC_RLE_RG6 1
#include "orc/orc_rle.cu"
