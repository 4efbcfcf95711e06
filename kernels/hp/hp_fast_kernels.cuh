// The kernels of the faster H-P versions (beyond seed 004; method notes in docs/hp.md), one
// header per strategy; this one includes those that hp_fast.cu and dist-hp
// (kernels/distributed/dist_hp.cu) both launch. hp_fast.cu alone includes two-level hp-tiled's
// partition (hp_split_kernels.cuh).
#pragma once

#include "hp_fast_device.cuh"     // shared helpers: thread indices, ranking a tile's keys by bucket
#include "hp_hist_kernels.cuh"    // privatized histograms: shared, global, the hybrid's split
#include "hp_tiled_kernels.cuh"   // hp-tiled's grouping of each tile by bucket
#include "hp_segment_kernels.cuh" // hp-tiled's per-bucket counts over the tiles' segments
#include "hp_pairs_kernels.cuh"   // placement of (key, value) pairs
#include "hp_expand_kernels.cuh"  // the fused scan's runs and their expansion into y
