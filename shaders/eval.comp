#version 430
// y[i] = ACT(x[i], ORDER, u_params) for i < u_n. ACT (a glsl_name from the registry) and ORDER are
// #defined by the loader (core/gpu/src/evaluator.cpp); a grid-stride loop covers any u_n with a capped
// number of work groups.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
uniform uint u_n;
uniform vec4 u_params;  // (p0 hi, p0 lo, p1 hi, p1 lo)

#include "activations.glsl"

void main() {
  uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  for (uint i = gl_GlobalInvocationID.x; i < u_n; i += stride) y[i] = ACT(x[i], ORDER, u_params);
}
