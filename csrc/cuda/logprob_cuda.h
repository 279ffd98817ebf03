// Plain C++ interface between the CUDA kernels (logprob_kernels.cu, CUDA headers only) and the
// torch glue (logprob_cuda.cpp). Pointers are device pointers; rows are contiguous, length v.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace pk_cuda {

enum class DType : int { kFloat32 = 0, kFloat16 = 1, kBFloat16 = 2 };

// logp[i] = z[i, t_i] - lse[i] with z = (softcap > 0 ? softcap * tanh(x / softcap) : x) * inv_t;
// rows with t_i == ignore_index get 0 and 0; an out-of-range target gives NaN (no host sync to check).
cudaError_t launch_forward(DType dtype, const void* logits, const int64_t* targets, float* logp, float* lse,
                           int64_t n, int64_t v, int64_t ignore_index, float inv_t, float softcap,
                           cudaStream_t stream);

// out[i, j] = g_i * (onehot(t_i)_j - exp(z[i, j] - lse[i])) * dz/dx[i, j], written in the input dtype.
cudaError_t launch_backward(DType dtype, const float* grad, const void* logits, const int64_t* targets,
                            const float* lse, void* out, int64_t n, int64_t v, int64_t ignore_index, float inv_t,
                            float softcap, cudaStream_t stream);

}  // namespace pk_cuda
