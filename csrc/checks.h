// Input checks shared by the CPU kernels (cpu/logprob_cpu.cpp) and the CUDA glue
// (cuda/logprob_cuda.cpp); the .cu file never sees them (it includes CUDA headers only).
#pragma once
#include <ATen/ATen.h>

namespace pk {

// logits [N, V], targets int64 [N] on the same device, a positive temperature, a non-empty vocabulary.
inline void check_inputs(const at::Tensor& logits, const at::Tensor& targets, double temperature) {
  TORCH_CHECK(logits.dim() == 2, "token_logprobs: logits must be [N, V], got ", logits.sizes());
  TORCH_CHECK(targets.dim() == 1 && targets.size(0) == logits.size(0),
              "token_logprobs: targets must be [N] matching logits, got ", targets.sizes());
  TORCH_CHECK(targets.scalar_type() == at::kLong, "token_logprobs: targets must be int64");
  TORCH_CHECK(targets.device() == logits.device(), "token_logprobs: targets on another device");
  TORCH_CHECK(temperature > 0, "token_logprobs: temperature must be positive");
  TORCH_CHECK(logits.size(0) == 0 || logits.size(1) > 0, "token_logprobs: empty vocabulary");
}

// The backward's extra inputs: one upstream gradient and one saved log-sum-exp per row.
inline void check_backward_inputs(const at::Tensor& grad, const at::Tensor& lse, int64_t n) {
  TORCH_CHECK(grad.numel() == n && lse.numel() == n, "token_logprobs_backward: grad and lse must be [N]");
}

}  // namespace pk
