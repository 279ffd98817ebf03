// CUDA kernels for the fused log-prob op. Only CUDA headers here, so `nvcc -c` checks this file on a
// machine without torch or a GPU. One block per row; each thread walks the row with 128-bit loads
// keeping an online (max, sum-exp) pair in fp32; pairs are merged by warp shuffles and then across
// warps in a fixed order, so results are deterministic run to run.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "logprob_cuda.h"

namespace pk_cuda {
namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

struct Transform {
  float inv_t;
  float cap;
  __device__ __forceinline__ float apply(float x) const {
    if (cap > 0.f) x = cap * tanhf(x / cap);
    return x * inv_t;
  }
  __device__ __forceinline__ float slope(float z) const {
    if (cap <= 0.f) return inv_t;
    const float t = z / (inv_t * cap);
    return inv_t * (1.f - t * t);
  }
};

struct MaxSum {
  float m;
  float s;
};

__device__ __forceinline__ MaxSum merge(MaxSum a, MaxSum b) {
  const float m = fmaxf(a.m, b.m);
  // fmaxf drops NaN: a side that saw only -inf/NaN carries NaN in s, and a + b keeps it visible.
  if (m == -INFINITY) return {m, a.s + b.s};
  return {m, a.s * __expf(a.m - m) + b.s * __expf(b.m - m)};
}

// Fold k values (already transformed) into the pair: one max update per 128-bit vector.
template <int K>
__device__ __forceinline__ void fold(MaxSum& st, const float (&z)[K]) {
  float vm = z[0];
#pragma unroll
  for (int i = 1; i < K; ++i) vm = fmaxf(vm, z[i]);
  const float m = fmaxf(st.m, vm);
  if (m == -INFINITY) {  // only -inf or NaN so far: record a NaN (fmaxf skipped it) in s
    float any = 0.f;
#pragma unroll
    for (int i = 0; i < K; ++i) any += z[i];
    if (any != any) st.s = NAN;
    return;
  }
  float s = st.s;
  if (m > st.m) s *= __expf(st.m - m);  // rescale only when the max moves (rare after the first vectors)
#pragma unroll
  for (int i = 0; i < K; ++i) s += __expf(z[i] - m);
  st = {m, s};
}

// alignas(16) makes the compiler emit one 128-bit load/store per pack (ld.global.v4), not one per element.
template <typename T>
struct alignas(16) Vec128 {
  static constexpr int kSize = 16 / sizeof(T);
  T v[kSize];
};

// Elements before the first 16-byte boundary of a row: rows start misaligned when v * sizeof(T) is not
// a multiple of 16.
template <typename T>
__device__ __forceinline__ int64_t head_len(const T* row, int64_t v) {
  constexpr int K = Vec128<T>::kSize;
  const int64_t mis = (reinterpret_cast<uintptr_t>(row) % 16) / sizeof(T);
  const int64_t h = mis == 0 ? 0 : K - mis;
  return h < v ? h : v;
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    forward_kernel(const T* __restrict__ logits, const int64_t* __restrict__ targets, float* __restrict__ logp,
                   float* __restrict__ lse, int64_t v, int64_t ignore, Transform tf) {
  constexpr int K = Vec128<T>::kSize;
  const int64_t row_id = blockIdx.x;
  const int64_t t = targets[row_id];
  if (t == ignore) {
    if (threadIdx.x == 0) {
      logp[row_id] = 0.f;
      lse[row_id] = 0.f;
    }
    return;
  }
  const T* row = logits + row_id * v;
  const int64_t h = head_len(row, v);
  const int64_t nvec = (v - h) / K;
  MaxSum st{-INFINITY, 0.f};
  for (int64_t j = threadIdx.x; j < h; j += kThreads) {
    const float z[1] = {tf.apply(to_float(row[j]))};
    fold<1>(st, z);
  }
  const Vec128<T>* body = reinterpret_cast<const Vec128<T>*>(row + h);
  for (int64_t j = threadIdx.x; j < nvec; j += kThreads) {
    const Vec128<T> pack = body[j];
    float z[K];
#pragma unroll
    for (int i = 0; i < K; ++i) z[i] = tf.apply(to_float(pack.v[i]));
    fold<K>(st, z);
  }
  for (int64_t j = h + nvec * K + threadIdx.x; j < v; j += kThreads) {
    const float z[1] = {tf.apply(to_float(row[j]))};
    fold<1>(st, z);
  }
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) {
    const MaxSum o{__shfl_xor_sync(0xffffffffu, st.m, off), __shfl_xor_sync(0xffffffffu, st.s, off)};
    st = merge(st, o);
  }
  __shared__ MaxSum warp_st[kWarps];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_st[warp] = st;
  __syncthreads();
  if (threadIdx.x == 0) {
    MaxSum acc = warp_st[0];
    for (int w = 1; w < kWarps; ++w) acc = merge(acc, warp_st[w]);  // fixed order: deterministic
    if (acc.m == -INFINITY || t < 0 || t >= v) {  // all -inf (as log_softmax) or a bad target: nan
      lse[row_id] = (t < 0 || t >= v) ? NAN : acc.m;  // a bad target poisons the backward too
      logp[row_id] = NAN;
    } else {
      const float ls = logf(acc.s);
      lse[row_id] = acc.m + ls;
      // (z_t - m) - log_sum stays exact when |z| is large; z_t - lse would round at lse's magnitude
      logp[row_id] = (tf.apply(to_float(row[t])) - acc.m) - ls;
    }
  }
}

template <typename T>
__device__ __forceinline__ T grad_one(float x, int64_t j, int64_t t, float g, float l, const Transform& tf) {
  const float z = tf.apply(x);
  const float p = __expf(z - l);
  return from_float<T>(g * ((j == t ? 1.f : 0.f) - p) * tf.slope(z));
}

template <typename T>
__global__ void __launch_bounds__(kThreads)
    backward_kernel(const float* __restrict__ grad, const T* __restrict__ logits,
                    const int64_t* __restrict__ targets, const float* __restrict__ lse, T* __restrict__ out,
                    int64_t v, int64_t ignore, Transform tf) {
  constexpr int K = Vec128<T>::kSize;
  const int64_t row_id = blockIdx.x;
  const int64_t t = targets[row_id];
  const float g = t == ignore ? 0.f : grad[row_id];
  const float l = lse[row_id];
  const T* row = logits + row_id * v;
  T* orow = out + row_id * v;
  // One head length aligns both pointers only when they share their offset modulo 16 (a sliced input
  // may not); otherwise the whole row takes the scalar path.
  const bool same_phase = reinterpret_cast<uintptr_t>(row) % 16 == reinterpret_cast<uintptr_t>(orow) % 16;
  const int64_t h = same_phase ? head_len(row, v) : v;
  const int64_t nvec = (v - h) / K;
  const bool zero = g == 0.f;
  for (int64_t j = threadIdx.x; j < h; j += kThreads)
    orow[j] = zero ? from_float<T>(0.f) : grad_one<T>(to_float(row[j]), j, t, g, l, tf);
  const Vec128<T>* body = reinterpret_cast<const Vec128<T>*>(row + h);
  Vec128<T>* obody = reinterpret_cast<Vec128<T>*>(orow + h);
  for (int64_t j = threadIdx.x; j < nvec; j += kThreads) {
    Vec128<T> res;
    if (zero) {
#pragma unroll
      for (int i = 0; i < K; ++i) res.v[i] = from_float<T>(0.f);
    } else {
      const Vec128<T> pack = body[j];
      const int64_t base = h + j * K;
#pragma unroll
      for (int i = 0; i < K; ++i) res.v[i] = grad_one<T>(to_float(pack.v[i]), base + i, t, g, l, tf);
    }
    obody[j] = res;
  }
  for (int64_t j = h + nvec * K + threadIdx.x; j < v; j += kThreads)
    orow[j] = zero ? from_float<T>(0.f) : grad_one<T>(to_float(row[j]), j, t, g, l, tf);
}

template <typename T>
cudaError_t forward_typed(const void* logits, const int64_t* targets, float* logp, float* lse, int64_t n, int64_t v,
                          int64_t ignore, Transform tf, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  forward_kernel<T><<<static_cast<unsigned>(n), kThreads, 0, stream>>>(static_cast<const T*>(logits), targets, logp,
                                                                       lse, v, ignore, tf);
  return cudaGetLastError();
}

template <typename T>
cudaError_t backward_typed(const float* grad, const void* logits, const int64_t* targets, const float* lse, void* out,
                           int64_t n, int64_t v, int64_t ignore, Transform tf, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  backward_kernel<T><<<static_cast<unsigned>(n), kThreads, 0, stream>>>(
      grad, static_cast<const T*>(logits), targets, lse, static_cast<T*>(out), v, ignore, tf);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_forward(DType dtype, const void* logits, const int64_t* targets, float* logp, float* lse,
                           int64_t n, int64_t v, int64_t ignore_index, float inv_t, float softcap,
                           cudaStream_t stream) {
  const Transform tf{inv_t, softcap};
  switch (dtype) {
    case DType::kFloat32:
      return forward_typed<float>(logits, targets, logp, lse, n, v, ignore_index, tf, stream);
    case DType::kFloat16:
      return forward_typed<__half>(logits, targets, logp, lse, n, v, ignore_index, tf, stream);
    case DType::kBFloat16:
      return forward_typed<__nv_bfloat16>(logits, targets, logp, lse, n, v, ignore_index, tf, stream);
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_backward(DType dtype, const float* grad, const void* logits, const int64_t* targets,
                            const float* lse, void* out, int64_t n, int64_t v, int64_t ignore_index, float inv_t,
                            float softcap, cudaStream_t stream) {
  const Transform tf{inv_t, softcap};
  switch (dtype) {
    case DType::kFloat32:
      return backward_typed<float>(grad, logits, targets, lse, out, n, v, ignore_index, tf, stream);
    case DType::kFloat16:
      return backward_typed<__half>(grad, logits, targets, lse, out, n, v, ignore_index, tf, stream);
    case DType::kBFloat16:
      return backward_typed<__nv_bfloat16>(grad, logits, targets, lse, out, n, v, ignore_index, tf, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace pk_cuda
