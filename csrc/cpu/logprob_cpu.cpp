// CPU kernels: one pass over each row's logits with an online log-sum-exp (ATen Vectorized,
// fp32 accumulation; fp64 for fp64 input), rows split across threads with at::parallel_for.
// A row is read once, block by block (see OnlineLse): one exp per element. Nothing of size [N, V] is allocated in the forward.
#include <ATen/ATen.h>
#include <ATen/OpMathType.h>
#include <ATen/Parallel.h>
#include <ATen/cpu/vec/functional.h>
#include <ATen/cpu/vec/vec.h>
#include <torch/library.h>

#include <cmath>
#include <limits>

#include "../checks.h"

namespace pk {
namespace {

using at::vec::Vectorized;
constexpr int64_t kBlock = 4096;

template <typename acc_t>
inline Vectorized<acc_t> vexp(const Vectorized<acc_t>& x) {
  return x.exp();
}
// exp_u20 is a few ULP less exact than exp() and far cheaper; its error stays ~1e-6 relative,
// well inside the 1e-4 budget, and it maps inputs below the float range (incl. -inf) to 0.
template <>
inline Vectorized<float> vexp(const Vectorized<float>& x) {
  return x.exp_u20();
}

template <typename acc_t>
struct Transform {
  acc_t inv_t;
  acc_t cap;  // 0: no softcap
  bool identity() const { return cap == acc_t(0) && inv_t == acc_t(1); }
  acc_t apply(acc_t x) const {
    if (cap > acc_t(0)) x = cap * std::tanh(x / cap);
    return x * inv_t;
  }
  Vectorized<acc_t> apply(const Vectorized<acc_t>& x) const {
    Vectorized<acc_t> z = x;
    if (cap > acc_t(0)) z = Vectorized<acc_t>(cap) * (z * Vectorized<acc_t>(acc_t(1) / cap)).tanh();
    return z * Vectorized<acc_t>(inv_t);
  }
  // d(apply)/dx written from z = apply(x): tanh(x/cap) = z / (inv_t * cap).
  acc_t slope(acc_t z) const {
    if (cap <= acc_t(0)) return inv_t;
    const acc_t t = z / (inv_t * cap);
    return inv_t * (acc_t(1) - t * t);
  }
};

// Make a block of `len` inputs available as transformed acc_t values: the input itself when no
// work is needed, else `buf` filled by conversion and the transform.
template <typename scalar_t, typename acc_t>
inline const acc_t* load_block(const scalar_t* src, int64_t len, acc_t* buf, const Transform<acc_t>& tf) {
  using V = Vectorized<acc_t>;
  constexpr int64_t W = V::size();
  if constexpr (std::is_same_v<scalar_t, acc_t>) {
    if (tf.identity()) return src;
    int64_t j = 0;
    for (; j + W <= len; j += W) tf.apply(V::loadu(src + j)).store(buf + j);
    for (; j < len; ++j) buf[j] = tf.apply(src[j]);
    return buf;
  } else {
    using VS = Vectorized<scalar_t>;
    constexpr int64_t WS = VS::size();
    int64_t j = 0;
    for (; j + WS <= len; j += WS) {
      auto halves = at::vec::convert_to_float<scalar_t>(VS::loadu(src + j));
      std::get<0>(halves).store(buf + j);
      std::get<1>(halves).store(buf + j + WS / 2);
    }
    for (; j < len; ++j) buf[j] = static_cast<acc_t>(src[j]);
    if (!tf.identity()) {
      j = 0;
      for (; j + W <= len; j += W) tf.apply(V::loadu(buf + j)).store(buf + j);
      for (; j < len; ++j) buf[j] = tf.apply(buf[j]);
    }
    return buf;
  }
}

// Online log-sum-exp with a lazily moved reference: sums exp(x - ref) where ref is an element value
// seen so far. ref only moves (rescaling the sum) when a block holds a value more than kSlack above
// it, so the common block costs one read, one exp and one max per element. Keeping x - ref <= kSlack
// bounds every term by e^kSlack, far from overflow even summed over 2^31 entries.
template <typename acc_t>
struct OnlineLse {
  using V = Vectorized<acc_t>;
  static constexpr acc_t kNegInf = -std::numeric_limits<acc_t>::infinity();
  static constexpr acc_t kSlack = acc_t(64);
  acc_t ref = kNegInf;
  V vsum = V(acc_t(0));
  acc_t ssum = acc_t(0);

  static acc_t block_max(const acc_t* p, int64_t len) {
    constexpr int64_t W = V::size();
    const int64_t nv = len / W * W;
    V m = V(kNegInf);
    for (int64_t j = 0; j < nv; j += W) m = at::vec::maximum(m, V::loadu(p + j));
    acc_t out = at::vec::vec_reduce_all<acc_t>([](V& a, V& b) { return at::vec::maximum(a, b); }, m);
    for (int64_t j = nv; j < len; ++j) out = std::max(out, p[j]);
    return out;
  }

  // sum of exp(p[j] - r) (vector part into *vs, tail returned) and the block's max
  static acc_t block_sum(const acc_t* p, int64_t len, acc_t r, V* vs, acc_t* bmax) {
    constexpr int64_t W = V::size();
    const int64_t nv = len / W * W;
    const V vr(r);
    V s0 = V(acc_t(0)), s1 = V(acc_t(0)), s2 = V(acc_t(0)), s3 = V(acc_t(0));
    V m0 = V(kNegInf), m1 = V(kNegInf);
    int64_t j = 0;
    for (; j + 4 * W <= nv; j += 4 * W) {
      const V a = V::loadu(p + j), b = V::loadu(p + j + W), c = V::loadu(p + j + 2 * W), d = V::loadu(p + j + 3 * W);
      m0 = at::vec::maximum(m0, at::vec::maximum(a, b));
      m1 = at::vec::maximum(m1, at::vec::maximum(c, d));
      s0 = s0 + vexp(a - vr);
      s1 = s1 + vexp(b - vr);
      s2 = s2 + vexp(c - vr);
      s3 = s3 + vexp(d - vr);
    }
    for (; j < nv; j += W) {
      const V a = V::loadu(p + j);
      m0 = at::vec::maximum(m0, a);
      s0 = s0 + vexp(a - vr);
    }
    *vs = (s0 + s1) + (s2 + s3);
    acc_t m = at::vec::vec_reduce_all<acc_t>([](V& a, V& b) { return at::vec::maximum(a, b); },
                                             at::vec::maximum(m0, m1));
    acc_t ts = acc_t(0);
    for (; j < len; ++j) {
      m = std::max(m, p[j]);
      ts += std::exp(p[j] - r);
    }
    *bmax = m;
    return ts;
  }

  void add_block(const acc_t* p, int64_t len) {
    if (ref == kNegInf) {
      ref = block_max(p, len);
      if (ref == kNegInf) return;  // all -inf so far: contributes nothing
    }
    V vs;
    acc_t bmax;
    acc_t ts = block_sum(p, len, ref, &vs, &bmax);
    if (bmax > ref + kSlack) {  // rare: move the reference up and redo this block
      const acc_t scale = std::exp(ref - bmax);
      vsum = vsum * V(scale);
      ssum *= scale;
      ref = bmax;
      ts = block_sum(p, len, ref, &vs, &bmax);
    }
    vsum = vsum + vs;
    ssum += ts;
  }

  // log(sum exp(x - ref)); the lse is ref + this. Kept apart so z_t - lse can be formed as
  // (z_t - ref) - log_sum, exact even when |z| is large.
  acc_t log_sum() const {
    return std::log(at::vec::vec_reduce_all<acc_t>([](V& a, V& b) { return a + b; }, vsum) + ssum);
  }
};

template <typename scalar_t, typename acc_t>
void forward_rows(const scalar_t* x, const int64_t* tgt, acc_t* logp, acc_t* lse, int64_t begin, int64_t end,
                  int64_t v, int64_t ignore, Transform<acc_t> tf) {
  alignas(64) acc_t buf[kBlock];
  for (int64_t i = begin; i < end; ++i) {
    if (tgt[i] == ignore) {
      logp[i] = acc_t(0);
      lse[i] = acc_t(0);
      continue;
    }
    const scalar_t* row = x + i * v;
    OnlineLse<acc_t> st;
    for (int64_t off = 0; off < v; off += kBlock) {
      const int64_t len = std::min(kBlock, v - off);
      st.add_block(load_block<scalar_t, acc_t>(row + off, len, buf, tf), len);
    }
    if (st.ref == OnlineLse<acc_t>::kNegInf) {  // every logit -inf: as log_softmax, nan
      lse[i] = st.ref;
      logp[i] = std::numeric_limits<acc_t>::quiet_NaN();
      continue;
    }
    const acc_t ls = st.log_sum();
    lse[i] = st.ref + ls;
    logp[i] = (tf.apply(static_cast<acc_t>(row[tgt[i]])) - st.ref) - ls;
  }
}

template <typename scalar_t, typename acc_t>
void backward_rows(const acc_t* grad, const scalar_t* x, const int64_t* tgt, const acc_t* lse, scalar_t* out,
                   int64_t begin, int64_t end, int64_t v, int64_t ignore, Transform<acc_t> tf) {
  using V = Vectorized<acc_t>;
  constexpr int64_t W = V::size();
  alignas(64) acc_t buf[kBlock];
  for (int64_t i = begin; i < end; ++i) {
    scalar_t* orow = out + i * v;
    const acc_t g = tgt[i] == ignore ? acc_t(0) : grad[i];
    if (g == acc_t(0)) {
      std::fill(orow, orow + v, scalar_t(0));
      continue;
    }
    const scalar_t* row = x + i * v;
    const V vl(lse[i]);
    const V vg(-g);
    for (int64_t off = 0; off < v; off += kBlock) {
      const int64_t len = std::min(kBlock, v - off);
      const acc_t* z = load_block<scalar_t, acc_t>(row + off, len, buf, tf);
      // d = -g * softmax * slope, straight into the output when it has the accumulation type (one pass
      // over the row's memory), else into buf for the conversion. z is the input or buf, never orow.
      acc_t* d = buf;
      if constexpr (std::is_same_v<scalar_t, acc_t>) d = orow + off;
      int64_t j = 0;
      if (tf.cap > acc_t(0)) {
        const V scale(acc_t(1) / (tf.inv_t * tf.cap));
        for (; j + W <= len; j += W) {
          const V zz = V::loadu(z + j);
          const V t = zz * scale;
          (vg * vexp(zz - vl) * V(tf.inv_t) * (V(acc_t(1)) - t * t)).store(d + j);
        }
      } else {
        const V vgi = vg * V(tf.inv_t);
        for (; j + W <= len; j += W) (vgi * vexp(V::loadu(z + j) - vl)).store(d + j);
      }
      for (; j < len; ++j) d[j] = -g * std::exp(z[j] - lse[i]) * tf.slope(z[j]);
      if constexpr (!std::is_same_v<scalar_t, acc_t>) {
        using VS = Vectorized<scalar_t>;
        constexpr int64_t WS = VS::size();
        int64_t k = 0;
        for (; k + WS <= len; k += WS)
          at::vec::convert_from_float<scalar_t>(V::loadu(buf + k), V::loadu(buf + k + WS / 2)).store(orow + off + k);
        for (; k < len; ++k) orow[off + k] = static_cast<scalar_t>(buf[k]);
      }
    }
    // the one-hot term, computed whole so (1 - p) keeps its precision
    const int64_t t = tgt[i];
    const acc_t zt = tf.apply(static_cast<acc_t>(row[t]));
    orow[t] = static_cast<scalar_t>(g * (acc_t(1) - std::exp(zt - lse[i])) * tf.slope(zt));
  }
}

void check_targets(const at::Tensor& t, int64_t v, int64_t ignore) {
  const int64_t* p = t.data_ptr<int64_t>();
  for (int64_t i = 0; i < t.numel(); ++i)
    TORCH_CHECK(p[i] == ignore || (p[i] >= 0 && p[i] < v), "token_logprobs: target ", p[i], " at row ", i,
                " is outside [0, ", v, ") and is not ignore_index ", ignore);
}

int64_t grain(int64_t v) { return std::max<int64_t>(1, 65536 / std::max<int64_t>(v, 1)); }

std::tuple<at::Tensor, at::Tensor> token_logprobs_cpu(const at::Tensor& logits, const at::Tensor& targets,
                                                      int64_t ignore_index, double temperature, double softcap) {
  check_inputs(logits, targets, temperature);
  const auto x = logits.contiguous();
  const auto t = targets.contiguous();
  const int64_t n = x.size(0), v = x.size(1);
  check_targets(t, v, ignore_index);
  const auto out_type = x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  auto logp = at::empty({n}, x.options().dtype(out_type));
  auto lse = at::empty({n}, x.options().dtype(out_type));
  if (n == 0) return {logp, lse};
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "token_logprobs_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const Transform<acc_t> tf{acc_t(1.0 / temperature), acc_t(softcap > 0 ? softcap : 0)};
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const int64_t* tp = t.data_ptr<int64_t>();
    acc_t* lp = logp.data_ptr<acc_t>();
    acc_t* sp = lse.data_ptr<acc_t>();
    at::parallel_for(0, n, grain(v), [&](int64_t b, int64_t e) {
      forward_rows<scalar_t, acc_t>(xp, tp, lp, sp, b, e, v, ignore_index, tf);
    });
  });
  return {logp, lse};
}

at::Tensor token_logprobs_backward_cpu(const at::Tensor& grad, const at::Tensor& logits, const at::Tensor& targets,
                                       const at::Tensor& lse, int64_t ignore_index, double temperature,
                                       double softcap) {
  check_inputs(logits, targets, temperature);
  const auto x = logits.contiguous();
  const auto t = targets.contiguous();
  const int64_t n = x.size(0), v = x.size(1);
  check_targets(t, v, ignore_index);
  const auto acc_type = x.scalar_type() == at::kDouble ? at::kDouble : at::kFloat;
  check_backward_inputs(grad, lse, n);
  const auto g = grad.to(acc_type).contiguous();
  const auto l = lse.to(acc_type).contiguous();
  auto out = at::empty_like(x);
  if (n == 0) return out;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, x.scalar_type(), "token_logprobs_backward_cpu", [&] {
    using acc_t = at::opmath_type<scalar_t>;
    const Transform<acc_t> tf{acc_t(1.0 / temperature), acc_t(softcap > 0 ? softcap : 0)};
    const scalar_t* xp = x.data_ptr<scalar_t>();
    const int64_t* tp = t.data_ptr<int64_t>();
    const acc_t* gp = g.data_ptr<acc_t>();
    const acc_t* lp = l.data_ptr<acc_t>();
    scalar_t* op = out.data_ptr<scalar_t>();
    at::parallel_for(0, n, grain(v), [&](int64_t b, int64_t e) {
      backward_rows<scalar_t, acc_t>(gp, xp, tp, lp, op, b, e, v, ignore_index, tf);
    });
  });
  return out;
}

}  // namespace
}  // namespace pk

TORCH_LIBRARY_IMPL(pipeline_kernels, CPU, m) {
  m.impl("token_logprobs", &pk::token_logprobs_cpu);
  m.impl("token_logprobs_backward", &pk::token_logprobs_backward_cpu);
}
