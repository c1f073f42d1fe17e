#version 430
// A block's activation, in place over its pre-activations z (n values at a_off), as gelu::ffn::Network:
//   a = ACT(z) and, in training, d = ACT'(z) (twins in shaders/activations.glsl);
//   with STOCHASTIC #defined, stochastic GELU: in training m = [u < Φ(z)] (the CPU's uniforms at r_off;
//   Φ(z) = GELU(z)/z, Φ(0) = 1/2), a = z·m, d = m; in evaluation a = GELU(z) = E[z·m].
// ACT (a glsl_name from the registry) and STOCHASTIC are #defined by the loader (core/gpu/ffn/trainer.cpp);
// a plain block's program has no reference to act_gelu (on llvmpipe an unused branch still cost time).
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Data { float data[]; };

uniform int u_n, u_train, u_a_off, u_d_off, u_r_off;
uniform vec4 u_params;  // (p0 hi, p0 lo, p1 hi, p1 lo)

#include "activations.glsl"

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < u_n; i += stride) {
    float z = data[u_a_off + i];
#ifndef STOCHASTIC
    data[u_a_off + i] = ACT(z, 0, u_params);
    if (u_train != 0) data[u_d_off + i] = ACT(z, 1, u_params);
#else
    if (u_train != 0) {
      float phi = z == 0.0 ? 0.5 : act_gelu(z, 0, vec4(0.0)) / z;
      float m = data[u_r_off + i] < phi ? 1.0 : 0.0;
      data[u_a_off + i] = z * m;
      data[u_d_off + i] = m;
    } else {
      data[u_a_off + i] = act_gelu(z, 0, vec4(0.0));
    }
#endif
  }
}
