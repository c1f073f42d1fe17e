#version 430
// The batch: columns idx[j] of the training inputs and targets, copied to contiguous (rows x B) blocks.
layout(local_size_x = 256) in;
layout(std430, binding = 0) buffer Data { float data[]; };
layout(std430, binding = 1) readonly buffer Index { uint idx[]; };

uniform int u_B, u_x_rows, u_y_rows;
uniform int u_x_src, u_y_src, u_x_dst, u_y_dst;

void main() {
  int rows = u_x_rows + u_y_rows;
  int stride = int(gl_NumWorkGroups.x * gl_WorkGroupSize.x);
  for (int e = int(gl_GlobalInvocationID.x); e < rows * u_B; e += stride) {
    int j = e / rows, r = e - j * rows;
    int k = int(idx[j]);
    if (r < u_x_rows)
      data[u_x_dst + j * u_x_rows + r] = data[u_x_src + k * u_x_rows + r];
    else
      data[u_y_dst + j * u_y_rows + (r - u_x_rows)] = data[u_y_src + k * u_y_rows + (r - u_x_rows)];
  }
}
