#version 430
// C = op(A)·op(B) on 32x32 output tiles: a work group of 8x8 invocations stages 32x16 slices of A and 16x32 of
// B in shared memory, and each invocation accumulates a 4x4 block of C in registers (rows li + 8r, columns
// lj + 8c): per k one vec4 of A and one of B from shared memory feed 16 multiply-adds, and a tile needs few
// barriers. On llvmpipe (Mesa 22.3) this was 3x faster than one output per invocation on 16x16 tiles, the vec4
// staging took 1.3x less CPU time than scalar shared loads, and 8x8 invocations beat 4x4, 16x16 and 4x8.
//   A(i,k) = data[a_off + i*a_rs + k*a_cs], B(k,j) = data[b_off + k*b_rs + j*b_cs], C(i,j) at c_off + i + j*M
//   (column-major; transposes are swapped strides). B's row u_b_ones_row (or column u_b_ones_col) reads as
//   1: the bias stored right after W turns W·x + b into [W b]·[x; 1] and Σ_batch dz into a column of dz·[x; 1]ᵀ.
// Every C(i,j) sums its products in increasing k, one rounding per multiply and per add. Epilogue:
// u_accumulate adds the old C, then u_mul_off >= 0 multiplies by data[mul_off + i + j*M] (dz = da ⊙ f'(z) of
// the block below). Activations run in act.comp: kept out of here so the 4x4 loops unroll and acc stays in
// registers (a call into the activation twins in the epilogue kept the loop rolled and acc in memory).
#ifndef WG
#define WG 8  // work group: WG x WG invocations
#endif
#define RB 4  // register block: RB x RB outputs per invocation (a vec4)
#define TM (WG * RB)  // output tile (rows and columns)
#define TK 16         // k slice
layout(local_size_x = WG, local_size_y = WG) in;
layout(std430, binding = 0) buffer Data { float data[]; };

uniform int u_M, u_N, u_K;
uniform int u_a_off, u_a_rs, u_a_cs;
uniform int u_b_off, u_b_rs, u_b_cs;
uniform int u_b_ones_row, u_b_ones_col;
uniform int u_c_off;
uniform int u_mul_off, u_accumulate;

shared vec4 s_a[TK][WG];  // s_a[k][l][r] = A(i0 + l + WG*r, k0 + k)
shared vec4 s_b[TK][WG];  // s_b[k][l][c] = B(k0 + k, j0 + l + WG*c)

float load_a(int i, int k) {
  if (i >= u_M || k >= u_K) return 0.0;
  return data[u_a_off + i * u_a_rs + k * u_a_cs];
}
float load_b(int k, int j) {
  if (k >= u_K || j >= u_N) return 0.0;
  if (k == u_b_ones_row || j == u_b_ones_col) return 1.0;
  return data[u_b_off + k * u_b_rs + j * u_b_cs];
}

void store(int i, int j, float acc) {
  int e = i + j * u_M;
  int c = u_c_off + e;
  float v = acc;
  if (u_accumulate != 0) v = data[c] + v;
  if (u_mul_off >= 0) v = v * data[u_mul_off + e];
  data[c] = v;
}

void main() {
  int li = int(gl_LocalInvocationID.x), lj = int(gl_LocalInvocationID.y);
  int t = li + WG * lj;
  int i0 = int(gl_WorkGroupID.x) * TM, j0 = int(gl_WorkGroupID.y) * TM;
  float acc[RB][RB];
  for (int r = 0; r < RB; ++r)
    for (int c = 0; c < RB; ++c) acc[r][c] = 0.0;
  for (int k0 = 0; k0 < u_K; k0 += TK) {
    for (int q = 0; q < TM * TK / (WG * WG); ++q) {
      int e = t + WG * WG * q;
      int ar = e % TM, ak = e / TM;  // A: rows fastest (contiguous for a_rs == 1)
      s_a[ak][ar % WG][ar / WG] = load_a(i0 + ar, k0 + ak);
      int bk = e % TK, bc = e / TK;  // B: k fastest (contiguous for b_rs == 1)
      s_b[bk][bc % WG][bc / WG] = load_b(k0 + bk, j0 + bc);
    }
    barrier();
    int kn = min(TK, u_K - k0);
    for (int k = 0; k < kn; ++k) {
      vec4 a = s_a[k][li], b = s_b[k][lj];
      for (int r = 0; r < RB; ++r)
        for (int c = 0; c < RB; ++c) acc[r][c] += a[r] * b[c];
    }
    barrier();
  }
  for (int r = 0; r < RB; ++r)
    for (int c = 0; c < RB; ++c) {
      int i = i0 + li + WG * r, j = j0 + lj + WG * c;
      if (i < u_M && j < u_N) store(i, j, acc[r][c]);
    }
}
