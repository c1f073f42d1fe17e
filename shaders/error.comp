#version 430
// Error of the GPU function against a reference: e[i] = metric(ACT(x[i]), ref[i]) (optionally stored as a
// curve) and, per work group, the maximum and the smallest index where it occurs. The host reduces the
// per-group results (at most a few thousand). Metrics: 0 abs, 1 rel, 2 ulp (distance in representable
// floats, exact; +0 and -0 are the same point). A NaN on one side only counts as +inf; NaN vs NaN and
// equal infinities as 0.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) readonly buffer Reference { float ref[]; };
layout(std430, binding = 2) writeonly buffer Curve { float curve[]; };
struct GroupMax {
  float err;
  uint index;
};
layout(std430, binding = 3) writeonly buffer Partial { GroupMax partial[]; };
uniform uint u_n;
uniform uint u_base;  // index of x[0] in the caller's whole array (chunking)
uniform int u_metric;
uniform bool u_write_curve;
uniform vec4 u_params;

#include "activations.glsl"

shared float s_err[256];
shared uint s_idx[256];

uint ordered(float v) {  // monotone map of floats to uints, -0 and +0 both to 2^31
  int b = floatBitsToInt(v);
  return b >= 0 ? uint(b) + 0x80000000u : 0x80000000u - uint(b & 0x7fffffff);
}

float error_of(float y, float r) {
  bool yn = isnan(y), rn = isnan(r);
  if (yn || rn) return (yn && rn) ? 0.0 : FLT_INF;
  if (y == r) return 0.0;
  if (u_metric == 2) {
    uint a = ordered(y), b = ordered(r);
    return float(a > b ? a - b : b - a);
  }
  if (isinf(y) || isinf(r)) return FLT_INF;
  float d = abs(y - r);
  if (u_metric == 1) return r == 0.0 ? FLT_INF : d / abs(r);
  return d;
}

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  float best = -1.0;
  uint best_i = 0xffffffffu;
  for (uint i = gl_GlobalInvocationID.x; i < u_n; i += stride) {
    float e = error_of(ACT(x[i], ORDER, u_params), ref[i]);
    if (u_write_curve) curve[i] = e;
    if (e > best) {  // strictly greater: the first (smallest) index of this invocation wins ties
      best = e;
      best_i = i;
    }
  }
  uint l = gl_LocalInvocationID.x;
  s_err[l] = best;
  s_idx[l] = best_i;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (l < s) {
      float o = s_err[l + s];
      uint oi = s_idx[l + s];
      if (o > s_err[l] || (o == s_err[l] && oi < s_idx[l])) {
        s_err[l] = o;
        s_idx[l] = oi;
      }
    }
    barrier();
  }
  if (l == 0u) {
    partial[gl_WorkGroupID.x].err = s_err[0];
    partial[gl_WorkGroupID.x].index = s_idx[0] == 0xffffffffu ? s_idx[0] : s_idx[0] + u_base;
  }
}
