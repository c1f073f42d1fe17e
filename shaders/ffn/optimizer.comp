#version 430
// One optimizer step over the flat parameter vector, as gelu::ffn::Optimizer<float> after the Trainer's
// weight decay: g += λ·mask·θ (mask 1 on weights, 0 on biases; the decayed gradient is stored back, as the
// CPU's), then SGD with momentum (v = μ·v + g, θ −= lr·v) or Adam with PyTorch's bias correction
// (θ −= step_size·m / (√v·inv_sqrt_bc2 + ε), step_size = lr/(1−β1ᵗ), inv_sqrt_bc2 = 1/√(1−β2ᵗ), both
// computed in double on the host and rounded to float as the CPU does).
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Data { float data[]; };

uniform int u_n, u_p_off, u_g_off, u_m_off, u_v_off, u_mask_off;
uniform int u_adam;
uniform float u_decay, u_lr, u_momentum, u_b1, u_b2, u_step_size, u_inv_sqrt_bc2, u_eps;

void main() {
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int i = int(gl_GlobalInvocationID.x); i < u_n; i += stride) {
    float p = data[u_p_off + i];
    float g = data[u_g_off + i];
    if (u_decay > 0.0) {
      g = g + u_decay * data[u_mask_off + i] * p;
      data[u_g_off + i] = g;
    }
    if (u_adam == 0) {
      float m = u_momentum * data[u_m_off + i] + g;
      data[u_m_off + i] = m;
      data[u_p_off + i] = p - u_lr * m;
    } else {
      float m = u_b1 * data[u_m_off + i] + (1.0 - u_b1) * g;
      float v = u_b2 * data[u_v_off + i] + (1.0 - u_b2) * (g * g);
      data[u_m_off + i] = m;
      data[u_v_off + i] = v;
      data[u_p_off + i] = p - u_step_size * m / (sqrt(v) * u_inv_sqrt_bc2 + u_eps);
    }
  }
}
