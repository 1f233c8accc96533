//! GPU encoder and decoder of the `rle` chunk format: one warp per segment.
