#version 430
// C = op(A)·op(B) on 16x16 output tiles staged through shared memory, with an epilogue for the FFN:
//   A(i,k) = data[a_off + i*a_rs + k*a_cs], B(k,j) = data[b_off + k*b_rs + j*b_cs], C(i,j) at c_off + i + j*M
//   (column-major; transposes are swapped strides). B's row u_b_ones_row (or column u_b_ones_col) reads as
//   1: the bias stored right after W turns W·x + b into [W b]·[x; 1] and Σ_batch dz into a column of dz·[x; 1]ᵀ.
// Epilogue: u_epilogue 0 stores acc; 1 stores ACT(acc) and, in training, ACT'(acc) at d_off; 2 is the
// stochastic GELU gate m = [u < Φ(acc)] (u at r_off) storing acc·m and m. Then u_accumulate adds the old C,
// and u_mul_off >= 0 multiplies by data[mul_off + i + j*M] (dz = da ⊙ f'(z) of the block below).
// ACT (a glsl_name from the registry) is #defined by the loader (core/gpu/ffn/trainer.cpp).
#define TILE 16
layout(local_size_x = TILE, local_size_y = TILE) in;
layout(std430, binding = 0) buffer Data { float data[]; };

uniform int u_M, u_N, u_K;
uniform int u_a_off, u_a_rs, u_a_cs;
uniform int u_b_off, u_b_rs, u_b_cs;
uniform int u_b_ones_row, u_b_ones_col;
uniform int u_c_off;
uniform int u_epilogue, u_train, u_d_off, u_r_off, u_mul_off, u_accumulate;
uniform vec4 u_params;

#include "activations.glsl"

shared float s_a[TILE][TILE + 1];
shared float s_b[TILE][TILE + 1];

float load_b(int k, int j) {
  if (k >= u_K || j >= u_N) return 0.0;
  if (k == u_b_ones_row || j == u_b_ones_col) return 1.0;
  return data[u_b_off + k * u_b_rs + j * u_b_cs];
}

void main() {
  int li = int(gl_LocalInvocationID.x), lj = int(gl_LocalInvocationID.y);
  int i0 = int(gl_WorkGroupID.x) * TILE, j0 = int(gl_WorkGroupID.y) * TILE;
  int i = i0 + li, j = j0 + lj;
  float acc = 0.0;
  for (int k0 = 0; k0 < u_K; k0 += TILE) {
    // Thread (li, lj) loads A(i0+li, k0+lj) and B(k0+li, j0+lj); rows of A are contiguous when a_rs == 1.
    int ka = k0 + lj;
    s_a[li][lj] = (i < u_M && ka < u_K) ? data[u_a_off + i * u_a_rs + ka * u_a_cs] : 0.0;
    s_b[li][lj] = load_b(k0 + li, j);
    barrier();
    int kn = min(TILE, u_K - k0);
    for (int k = 0; k < kn; ++k) acc += s_a[li][k] * s_b[k][lj];
    barrier();
  }
  if (i >= u_M || j >= u_N) return;
  int c = u_c_off + i + j * u_M;
  int e = i + j * u_M;
  float v = acc;
  if (u_epilogue == 1) {
    v = ACT(acc, 0, u_params);
    if (u_train != 0) data[u_d_off + e] = ACT(acc, 1, u_params);
  } else if (u_epilogue == 2) {
    if (u_train != 0) {
      // Φ(z) = GELU(z)/z (exact GELU's twin); Φ(0) = 1/2.
      float phi = acc == 0.0 ? 0.5 : act_gelu(acc, 0, vec4(0.0)) / acc;
      float m = data[u_r_off + e] < phi ? 1.0 : 0.0;
      v = acc * m;
      data[u_d_off + e] = m;
    } else {
      v = act_gelu(acc, 0, vec4(0.0));
    }
  }
  if (u_accumulate != 0) v = data[c] + v;
  if (u_mul_off >= 0) v = v * data[u_mul_off + e];
  data[c] = v;
}
