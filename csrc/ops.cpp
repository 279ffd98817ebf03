// Op schemas of the log-prob extension. Device implementations register themselves in
// cpu/logprob_cpu.cpp and cuda/logprob_cuda.cpp; autograd and fake (meta) kernels are attached
// from Python (pipeline/kernels/ops.py) with torch.library.
#include <torch/library.h>

TORCH_LIBRARY(pipeline_kernels, m) {
  // Per-token log-prob of targets under softcap/temperature-transformed logits, plus the saved
  // log-sum-exp. softcap <= 0 means none. Rows whose target is ignore_index give 0.
  m.def(
      "token_logprobs(Tensor logits, Tensor targets, int ignore_index, float temperature, float softcap)"
      " -> (Tensor, Tensor)");
  // grad_logits = grad[row] * (onehot - softmax) * d(transform)/dx, softmax recomputed from lse.
  m.def(
      "token_logprobs_backward(Tensor grad, Tensor logits, Tensor targets, Tensor lse, int ignore_index,"
      " float temperature, float softcap) -> Tensor");
}
