#version 430
// GLU blocks' elementwise products, as gelu::ffn::Network: forward h = g ⊙ u; backward du = dh ⊙ g and
// dz = (dh ⊙ u) ⊙ f'(z) (f'(z) or the stochastic mask at d).
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Data { float data[]; };

uniform int u_n, u_backward;
uniform int u_g_off, u_u_off, u_h_off, u_d_off, u_dh_off, u_du_off, u_dz_off;

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < u_n; i += stride) {
    if (u_backward == 0) {
      data[u_h_off + i] = data[u_g_off + i] * data[u_u_off + i];
    } else {
      float dh = data[u_dh_off + i];
      data[u_du_off + i] = dh * data[u_g_off + i];
      data[u_dz_off + i] = (dh * data[u_u_off + i]) * data[u_d_off + i];
    }
  }
}
