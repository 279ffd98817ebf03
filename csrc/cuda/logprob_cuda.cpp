// Torch glue for the CUDA kernels: checks, output allocation, stream, and the CUDA registrations.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAGuard.h>
#include <torch/library.h>

#include "../checks.h"
#include "logprob_cuda.h"

namespace pk {
namespace {

pk_cuda::DType dtype_of(const at::Tensor& x) {
  switch (x.scalar_type()) {
    case at::kFloat:
      return pk_cuda::DType::kFloat32;
    case at::kHalf:
      return pk_cuda::DType::kFloat16;
    case at::kBFloat16:
      return pk_cuda::DType::kBFloat16;
    default:
      TORCH_CHECK(false, "token_logprobs (CUDA): logits must be float32, float16 or bfloat16, got ", x.scalar_type());
  }
}

// the shared checks (../checks.h) plus the CUDA launch's own limit
void check(const at::Tensor& logits, const at::Tensor& targets, double temperature) {
  check_inputs(logits, targets, temperature);
  TORCH_CHECK(logits.size(0) < (int64_t(1) << 31), "token_logprobs (CUDA): too many rows for one launch");
}

std::tuple<at::Tensor, at::Tensor> token_logprobs_cuda(const at::Tensor& logits, const at::Tensor& targets,
                                                       int64_t ignore_index, double temperature, double softcap) {
  check(logits, targets, temperature);
  const c10::cuda::CUDAGuard guard(logits.device());
  const auto x = logits.contiguous();
  const auto t = targets.contiguous();
  const int64_t n = x.size(0), v = x.size(1);
  auto logp = at::empty({n}, x.options().dtype(at::kFloat));
  auto lse = at::empty({n}, x.options().dtype(at::kFloat));
  C10_CUDA_CHECK(pk_cuda::launch_forward(dtype_of(x), x.data_ptr(), t.data_ptr<int64_t>(), logp.data_ptr<float>(),
                                         lse.data_ptr<float>(), n, v, ignore_index, float(1.0 / temperature),
                                         float(softcap > 0 ? softcap : 0), at::cuda::getCurrentCUDAStream()));
  return {logp, lse};
}

at::Tensor token_logprobs_backward_cuda(const at::Tensor& grad, const at::Tensor& logits, const at::Tensor& targets,
                                        const at::Tensor& lse, int64_t ignore_index, double temperature,
                                        double softcap) {
  check(logits, targets, temperature);
  const c10::cuda::CUDAGuard guard(logits.device());
  const auto x = logits.contiguous();
  const auto t = targets.contiguous();
  const int64_t n = x.size(0), v = x.size(1);
  check_backward_inputs(grad, lse, n);
  // a host pointer handed to the kernel would be an illegal access that poisons the CUDA context
  TORCH_CHECK(grad.device() == logits.device() && lse.device() == logits.device(),
              "token_logprobs_backward: grad and lse must be on ", logits.device());
  const auto g = grad.to(at::kFloat).contiguous();
  const auto l = lse.to(at::kFloat).contiguous();
  auto out = at::empty_like(x);
  C10_CUDA_CHECK(pk_cuda::launch_backward(dtype_of(x), g.data_ptr<float>(), x.data_ptr(), t.data_ptr<int64_t>(),
                                          l.data_ptr<float>(), out.data_ptr(), n, v, ignore_index,
                                          float(1.0 / temperature), float(softcap > 0 ? softcap : 0),
                                          at::cuda::getCurrentCUDAStream()));
  return out;
}

}  // namespace
}  // namespace pk

TORCH_LIBRARY_IMPL(pipeline_kernels, CUDA, m) {
  m.impl("token_logprobs", &pk::token_logprobs_cuda);
  m.impl("token_logprobs_backward", &pk::token_logprobs_backward_cuda);
}
