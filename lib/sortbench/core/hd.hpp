// SB_HD marks functions compiled for both host and device: the index arithmetic shared by a
// kernel and its CPU test (the moderngpu habit; see docs/style.md). Plain g++ sees nothing.
#pragma once

#if defined(__CUDACC__)
#define SB_HD __host__ __device__
#define SB_HD_INLINE __host__ __device__ __forceinline__
#else
#define SB_HD
#define SB_HD_INLINE inline
#endif
