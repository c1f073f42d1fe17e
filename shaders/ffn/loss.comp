#version 430
// Mean loss over a batch of logits z (rows x B) against targets t, and dL/dz (same layout), as
// gelu::ffn::loss: 0 MSE, 1 BCE on logits (max(z,0) − z·t + log1p(e^−|z|)), 2 softmax cross-entropy.
// One work group; each invocation takes columns l, l+256, ... and a tree reduction sums them.
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Data { float data[]; };

uniform int u_kind, u_rows, u_B;
uniform int u_z_off, u_t_off, u_dz_off, u_loss_off;

#include "activations.glsl"

shared float s_sum[256];

float sigmoid_f(float z) { return sigmoid_pair(vec2(z, 0.0)).x; }

void main() {
  int l = int(gl_LocalInvocationID.x);
  float inv_b = 1.0 / float(u_B);
  float sum = 0.0;
  for (int c = l; c < u_B; c += 256) {
    int base = c * u_rows;
    if (u_kind == 0) {
      for (int r = 0; r < u_rows; ++r) {
        float e = data[u_z_off + base + r] - data[u_t_off + base + r];
        sum += e * e;
        data[u_dz_off + base + r] = 2.0 * e * inv_b;
      }
    } else if (u_kind == 1) {
      for (int r = 0; r < u_rows; ++r) {
        float z = data[u_z_off + base + r], t = data[u_t_off + base + r];
        sum += max(z, 0.0) - z * t + log1p_unit(exp_f(-abs(z)));
        data[u_dz_off + base + r] = (sigmoid_f(z) - t) * inv_b;
      }
    } else {
      float m = data[u_z_off + base];
      float tsum = 0.0;
      for (int r = 0; r < u_rows; ++r) {
        m = max(m, data[u_z_off + base + r]);
        tsum += data[u_t_off + base + r];
      }
      float se = 0.0;
      for (int r = 0; r < u_rows; ++r) se += exp_f(data[u_z_off + base + r] - m);
      float lse = m + log(se);
      for (int r = 0; r < u_rows; ++r) {
        float z = data[u_z_off + base + r], t = data[u_t_off + base + r];
        sum += t * (lse - z);
        data[u_dz_off + base + r] = (exp_f(z - lse) * tsum - t) * inv_b;
      }
    }
  }
  s_sum[l] = sum;
  barrier();
  for (int s = 128; s > 0; s >>= 1) {
    if (l < s) s_sum[l] += s_sum[l + s];
    barrier();
  }
  if (l == 0) data[u_loss_off] = s_sum[0] * inv_b;
}
