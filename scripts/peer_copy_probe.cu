// Peer-copy rates on this host (issue 51, docs/distributed.md "Measured, round three"): 2 GiB from
// GPU 0 to GPU 1 with cudaMemcpyPeerAsync, one way and both ways at once, split over 1, 2, 4 and 8
// streams; with more than two GPUs, an all-to-all of every visible GPU, one stream a GPU
// (rotated, as PeerCopies issues it) or one stream a peer. The best of three timed tries after one.
//   nvcc -O2 -std=c++17 -o /tmp/peer_copy_probe scripts/peer_copy_probe.cu && /tmp/peer_copy_probe
#include <cstdio>
#include <vector>
#include <chrono>
#include <thread>
#include <cuda_runtime.h>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)
int main() {
  int g = 0; CK(cudaGetDeviceCount(&g));
  const size_t bytes = size_t(2) << 30;
  std::vector<char*> src(g), dst(g);
  std::vector<std::vector<cudaStream_t>> st(g, std::vector<cudaStream_t>(8));
  for (int d = 0; d < g; ++d) {
    CK(cudaSetDevice(d));
    for (int p = 0; p < g; ++p) if (p != d) { cudaError_t e = cudaDeviceEnablePeerAccess(p, 0); if (e) cudaGetLastError(); }
    CK(cudaMalloc(&src[d], bytes)); CK(cudaMalloc(&dst[d], bytes));
    CK(cudaMemset(src[d], d, bytes));
    for (auto& s : st[d]) CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  auto sync_all = [&] { for (int d = 0; d < g; ++d) { CK(cudaSetDevice(d)); CK(cudaDeviceSynchronize()); } };
  auto timed = [&](auto body) {
    double best = 1e9;
    for (int t = 0; t < 4; ++t) {
      sync_all();
      auto a = std::chrono::steady_clock::now();
      body(); sync_all();
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
      if (t && s < best) best = s;
    }
    return best;
  };
  for (int lanes : {1, 2, 4, 8}) {
    const size_t part = bytes / lanes;
    double uni = timed([&] { CK(cudaSetDevice(0)); for (int l = 0; l < lanes; ++l) CK(cudaMemcpyPeerAsync(dst[1] + l * part, 1, src[0] + l * part, 0, part, st[0][l])); });
    double bi = timed([&] { for (int d = 0; d < 2; ++d) { CK(cudaSetDevice(d)); for (int l = 0; l < lanes; ++l) CK(cudaMemcpyPeerAsync(dst[1 - d] + l * part, 1 - d, src[d] + l * part, d, part, st[d][l])); } });
    printf("GPU0->GPU1 2 GiB, %d stream(s): one way %.0f GB/s; both ways at once %.0f GB/s each way\n", lanes, bytes / uni / 1e9, bytes / bi / 1e9);
  }
  if (g > 2) {
    const size_t per = bytes / g;
    for (int mode = 0; mode < 2; ++mode) {
      double t = timed([&] {
        for (int d = 0; d < g; ++d) { CK(cudaSetDevice(d));
          for (int k = 1; k < g; ++k) { int q = (d + k) % g;
            CK(cudaMemcpyPeerAsync(dst[q] + d * per, q, src[d] + q * per, d, per, st[d][mode ? k : 0])); } }
      });
      printf("all-to-all of %d GPUs, %.0f MiB a peer, %s: %.0f GB/s leaving each GPU\n", g, per / 1048576.0,
             mode ? "one stream a peer" : "one stream, rotated", per * (g - 1) / t / 1e9);
    }
  }
  return 0;
}
