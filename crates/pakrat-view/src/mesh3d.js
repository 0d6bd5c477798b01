// mesh3d.js: the 3D view of `pakrat view`. A small renderer of .glb files
// in plain WebGL 2, with no library and no network use:
//
// * GLB parsing, accessors (strided, normalized, sparse), indexed triangles;
// * one base-colour texture per material (the PNGs embedded in the .glb),
//   vertex colours, alpha mask and blend, simple two-sided lighting;
// * the node tree with TRS transforms, vertex skinning in the shader (the
//   joint matrices in a float texture, four texels a joint), morph targets
//   blended on the CPU (only the targets whose weight is not zero);
// * glTF animations: node translation/rotation/scale and morph weights,
//   LINEAR (rotations slerped) and STEP;
// * morph targets no animation drives (a UE4/UE5 mesh's) shown one at a
//   time at full weight from a picker;
// * an orbit camera: drag to orbit, wheel to zoom, a reset button.
//
// The page calls `Mesh3D.open(box, url, headers)`; the view it returns is
// also kept as `Mesh3D.last` (the browser test drives it through the page's
// controls and reads the canvas).
"use strict";
(function () {

// ---------------------------------------------------------------- math --
// 4×4 matrices are Float32Array(16) in column-major order, as GL takes them.

const M4 = {
  identity() { const m = new Float32Array(16); m[0] = m[5] = m[10] = m[15] = 1; return m; },
  mul(a, b) {
    const o = new Float32Array(16);
    for (let c = 0; c < 4; c++) {
      for (let r = 0; r < 4; r++) {
        let s = 0;
        for (let k = 0; k < 4; k++) s += a[k * 4 + r] * b[c * 4 + k];
        o[c * 4 + r] = s;
      }
    }
    return o;
  },
  // Translation t, rotation quaternion q (x, y, z, w), scale s.
  fromTRS(t, q, s) {
    const [x, y, z, w] = q;
    const xx = x * x, yy = y * y, zz = z * z, xy = x * y, xz = x * z, yz = y * z, wx = w * x, wy = w * y, wz = w * z;
    return new Float32Array([
      (1 - 2 * (yy + zz)) * s[0], 2 * (xy + wz) * s[0], 2 * (xz - wy) * s[0], 0,
      2 * (xy - wz) * s[1], (1 - 2 * (xx + zz)) * s[1], 2 * (yz + wx) * s[1], 0,
      2 * (xz + wy) * s[2], 2 * (yz - wx) * s[2], (1 - 2 * (xx + yy)) * s[2], 0,
      t[0], t[1], t[2], 1]);
  },
  perspective(fovy, aspect, near, far) {
    const f = 1 / Math.tan(fovy / 2), m = new Float32Array(16);
    m[0] = f / aspect; m[5] = f; m[10] = (far + near) / (near - far); m[11] = -1;
    m[14] = 2 * far * near / (near - far);
    return m;
  },
  lookAt(eye, at, up) {
    const z = norm(sub(eye, at)), x = norm(cross(up, z)), y = cross(z, x);
    return new Float32Array([x[0], y[0], z[0], 0, x[1], y[1], z[1], 0, x[2], y[2], z[2], 0,
      -dot(x, eye), -dot(y, eye), -dot(z, eye), 1]);
  },
  point(m, p) {
    return [0, 1, 2].map(r => m[r] * p[0] + m[4 + r] * p[1] + m[8 + r] * p[2] + m[12 + r]);
  },
};
const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const norm = a => { const l = Math.hypot(a[0], a[1], a[2]) || 1; return [a[0] / l, a[1] / l, a[2] / l]; };

// Spherical interpolation of unit quaternions (the shorter way round).
function slerp(a, b, t) {
  let d = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  const s = d < 0 ? -1 : 1;
  d *= s;
  let ka = 1 - t, kb = t * s;
  if (d < 0.9995) {
    const th = Math.acos(d), sn = Math.sin(th);
    ka = Math.sin((1 - t) * th) / sn; kb = Math.sin(t * th) / sn * s;
  }
  const q = [0, 1, 2, 3].map(i => a[i] * ka + b[i] * kb);
  const l = Math.hypot(q[0], q[1], q[2], q[3]) || 1;
  return q.map(v => v / l);
}

// ---------------------------------------------------------------- glb --

// The JSON and BIN chunks of a .glb file.
function parseGlb(buf) {
  const v = new DataView(buf);
  if (buf.byteLength < 20 || v.getUint32(0, true) !== 0x46546c67) throw new Error("not a .glb file");
  if (v.getUint32(4, true) !== 2) throw new Error("glTF version " + v.getUint32(4, true) + " (2 is read)");
  let at = 12, json = null, bin = null;
  while (at + 8 <= buf.byteLength) {
    const len = v.getUint32(at, true), type = v.getUint32(at + 4, true);
    const body = new Uint8Array(buf, at + 8, len);
    if (type === 0x4e4f534a) json = JSON.parse(new TextDecoder().decode(body));
    else if (type === 0x004e4942) bin = body;
    at += 8 + len;
  }
  if (!json) throw new Error("the .glb has no JSON chunk");
  return {json, bin: bin || new Uint8Array(0)};
}

const COMPONENTS = {SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16};
const ARRAYS = {5120: Int8Array, 5121: Uint8Array, 5122: Int16Array, 5123: Uint16Array, 5125: Uint32Array, 5126: Float32Array};
// What a normalized integer's largest value means 1.0 for.
const NORM = {5120: 127, 5121: 255, 5122: 32767, 5123: 65535};

// `count` elements of `n` components of `ctype` from a buffer view, as a
// typed array of that type (a copy when the view is strided).
function readView(g, viewIndex, byteOffset, ctype, n, count) {
  const T = ARRAYS[ctype], bv = g.json.bufferViews[viewIndex];
  const start = g.bin.byteOffset + (bv.byteOffset || 0) + (byteOffset || 0);
  const size = T.BYTES_PER_ELEMENT * n, stride = bv.byteStride || size;
  if (stride === size && start % T.BYTES_PER_ELEMENT === 0) return new T(g.bin.buffer, start, n * count);
  const out = new T(n * count), dv = new DataView(g.bin.buffer);
  for (let i = 0; i < count; i++) {
    const src = new Uint8Array(g.bin.buffer, start + i * stride, size);
    new Uint8Array(out.buffer, i * size, size).set(src);
  }
  return out;
}

// Accessor `i` as {array, n, count}: floats (normalized integers made
// 0..1 or -1..1) as a Float32Array, other integers in their own type.
// Sparse accessors have their substitutions applied.
function accessor(g, i) {
  if (g.cache[i]) return g.cache[i];
  const a = g.json.accessors[i], n = COMPONENTS[a.type], T = ARRAYS[a.componentType];
  let arr = a.bufferView === undefined ? new T(n * a.count) : readView(g, a.bufferView, a.byteOffset, a.componentType, n, a.count);
  if (a.sparse) {
    arr = T.from(arr);
    const s = a.sparse;
    const idx = readView(g, s.indices.bufferView, s.indices.byteOffset, s.indices.componentType, 1, s.count);
    const val = readView(g, s.values.bufferView, s.values.byteOffset, a.componentType, n, s.count);
    for (let k = 0; k < s.count; k++) arr.set(val.subarray(k * n, k * n + n), idx[k] * n);
  }
  if (a.normalized && NORM[a.componentType]) {
    const f = new Float32Array(arr.length), d = NORM[a.componentType];
    for (let k = 0; k < arr.length; k++) f[k] = Math.max(arr[k] / d, -1);
    arr = f;
  }
  return (g.cache[i] = {array: arr, n, count: a.count, min: a.min, max: a.max});
}

// A morph target's position differences: dense, or (for a sparse
// accessor over zeros) only the vertices that move.
function morphTarget(g, i) {
  const a = g.json.accessors[i];
  if (a.sparse && a.bufferView === undefined) {
    const s = a.sparse;
    return {
      idx: readView(g, s.indices.bufferView, s.indices.byteOffset, s.indices.componentType, 1, s.count),
      val: readView(g, s.values.bufferView, s.values.byteOffset, 5126, 3, s.count),
    };
  }
  return {idx: null, val: accessor(g, i).array};
}

// ------------------------------------------------------------- shaders --

const VS = `#version 300 es
in vec3 aPos; in vec3 aNrm; in vec2 aUv; in vec4 aCol; in vec4 aJoints; in vec4 aWeights;
uniform mat4 uProj, uView, uModel;
uniform bool uSkinned;
uniform highp sampler2D uJoints;  // four texels (the columns) a joint
out vec3 vNrm; out vec2 vUv; out vec4 vCol;
mat4 joint(float j) {
  int r = int(j);
  return mat4(texelFetch(uJoints, ivec2(0, r), 0), texelFetch(uJoints, ivec2(1, r), 0),
              texelFetch(uJoints, ivec2(2, r), 0), texelFetch(uJoints, ivec2(3, r), 0));
}
void main() {
  mat4 m = uModel;
  if (uSkinned) {
    m = aWeights.x * joint(aJoints.x) + aWeights.y * joint(aJoints.y)
      + aWeights.z * joint(aJoints.z) + aWeights.w * joint(aJoints.w);
  }
  vNrm = mat3(m) * aNrm;
  vUv = aUv; vCol = aCol;
  gl_Position = uProj * uView * m * vec4(aPos, 1.0);
}`;

const FS = `#version 300 es
precision mediump float;
in vec3 vNrm; in vec2 vUv; in vec4 vCol;
uniform sampler2D uTex;
uniform bool uHasTex;
uniform vec4 uBase;
uniform float uCutoff;   // alpha mask cutoff, or -1
uniform vec3 uLight;     // towards the light, view space
uniform mat4 uViewN;
out vec4 outColor;
void main() {
  vec4 c = uBase * vCol;
  if (uHasTex) c *= texture(uTex, vUv);
  if (uCutoff >= 0.0 && c.a < uCutoff) discard;
  vec3 n = normalize(mat3(uViewN) * vNrm);
  // Two-sided: a face seen from behind is lit as its front.
  float d = abs(dot(n, uLight));
  outColor = vec4(c.rgb * (0.35 + 0.65 * d), c.a);
}`;

function compile(gl, type, src) {
  const s = gl.createShader(type);
  gl.shaderSource(s, src); gl.compileShader(s);
  if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error("shader: " + gl.getShaderInfoLog(s));
  return s;
}

function program(gl) {
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl, gl.VERTEX_SHADER, VS));
  gl.attachShader(p, compile(gl, gl.FRAGMENT_SHADER, FS));
  ["aPos", "aNrm", "aUv", "aCol", "aJoints", "aWeights"].forEach((n, i) => gl.bindAttribLocation(p, i, n));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error("shader link: " + gl.getProgramInfoLog(p));
  const u = {};
  for (const n of ["uProj", "uView", "uModel", "uSkinned", "uJoints", "uTex", "uHasTex", "uBase", "uCutoff", "uLight", "uViewN"]) u[n] = gl.getUniformLocation(p, n);
  return {p, u};
}

// Attribute slots (bound above) and their values when a mesh has none.
const SLOT = {POSITION: 0, NORMAL: 1, TEXCOORD: 2, COLOR_0: 3, JOINTS_0: 4, WEIGHTS_0: 5};
const DEFAULTS = [[0, 0, 0, 1], [0, 1, 0, 0], [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0], [0, 0, 0, 0]];

// ------------------------------------------------------------ building --

// A GL buffer holding `data`.
function glBuffer(gl, target, data, usage) {
  const b = gl.createBuffer();
  gl.bindBuffer(target, b);
  gl.bufferData(target, data, usage || gl.STATIC_DRAW);
  return b;
}

// Smooth normals from positions and triangles (for primitives without).
function computeNormals(pos, idx) {
  const n = new Float32Array(pos.length);
  for (let t = 0; t + 2 < idx.length; t += 3) {
    const [a, b, c] = [idx[t] * 3, idx[t + 1] * 3, idx[t + 2] * 3];
    const u = [pos[b] - pos[a], pos[b + 1] - pos[a + 1], pos[b + 2] - pos[a + 2]];
    const v = [pos[c] - pos[a], pos[c + 1] - pos[a + 1], pos[c + 2] - pos[a + 2]];
    const f = cross(u, v);
    for (const k of [a, b, c]) { n[k] += f[0]; n[k + 1] += f[1]; n[k + 2] += f[2]; }
  }
  return n;
}

// One primitive: its vertex array, index buffer, material and morph data.
function buildPrimitive(gl, g, prim) {
  if ((prim.mode ?? 4) !== 4) return null;
  const at = prim.attributes, vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const pos = accessor(g, at.POSITION);
  let idx = prim.indices !== undefined ? accessor(g, prim.indices).array : Uint32Array.from({length: pos.count}, (_, i) => i);
  if (idx instanceof Uint8Array) idx = Uint16Array.from(idx);
  const out = {vao, count: idx.length, type: idx instanceof Uint32Array ? gl.UNSIGNED_INT : gl.UNSIGNED_SHORT,
    material: prim.material, skinned: at.JOINTS_0 !== undefined && at.WEIGHTS_0 !== undefined,
    base: pos.array, targets: [], vertices: pos.count};
  // Positions change with morph targets: their buffer is rewritten.
  out.targets = (prim.targets || []).filter(t => t.POSITION !== undefined).map(t => morphTarget(g, t.POSITION));
  out.posBuf = attrib(gl, SLOT.POSITION, pos.array, 3, out.targets.length ? gl.DYNAMIC_DRAW : gl.STATIC_DRAW);
  const nrm = at.NORMAL !== undefined ? accessor(g, at.NORMAL).array : computeNormals(pos.array, idx);
  attrib(gl, SLOT.NORMAL, nrm, 3);
  const tex = g.json.materials?.[prim.material]?.pbrMetallicRoughness?.baseColorTexture;
  const uvSet = "TEXCOORD_" + (tex?.texCoord || 0);
  optional(gl, g, SLOT.TEXCOORD, at[uvSet]);
  optional(gl, g, SLOT.COLOR_0, at.COLOR_0, true);
  optional(gl, g, SLOT.JOINTS_0, at.JOINTS_0);
  optional(gl, g, SLOT.WEIGHTS_0, at.WEIGHTS_0);
  glBuffer(gl, gl.ELEMENT_ARRAY_BUFFER, idx);
  gl.bindVertexArray(null);
  return out;
}

// Float attribute `slot` from `data` (n components a vertex).
function attrib(gl, slot, data, n, usage) {
  const b = glBuffer(gl, gl.ARRAY_BUFFER, data, usage);
  gl.enableVertexAttribArray(slot);
  // Integer arrays (joints) are converted to floats by GL.
  const type = data instanceof Float32Array ? gl.FLOAT : data instanceof Uint16Array ? gl.UNSIGNED_SHORT : gl.UNSIGNED_BYTE;
  gl.vertexAttribPointer(slot, n, type, false, 0, 0);
  return b;
}

// An attribute the primitive may lack (then its constant default).
function optional(gl, g, slot, index, rgbToRgba) {
  if (index === undefined) { gl.disableVertexAttribArray(slot); gl.vertexAttrib4f(slot, ...DEFAULTS[slot]); return; }
  const a = accessor(g, index);
  if (rgbToRgba && a.n === 3) {
    const f = new Float32Array(a.count * 4);
    for (let i = 0; i < a.count; i++) { f.set(a.array.subarray(i * 3, i * 3 + 3), i * 4); f[i * 4 + 3] = 1; }
    return attrib(gl, slot, f, 4);
  }
  attrib(gl, slot, a.array, a.n);
}

// The base-colour textures: each image decoded from its PNG bytes, then
// `done()` (to draw again).
function loadTextures(gl, g, done) {
  const j = g.json, out = [];
  out.loading = 0;
  (j.textures || []).forEach((t, i) => {
    const img = j.images?.[t.source];
    if (!img || img.bufferView === undefined) return;
    const bytes = readView(g, img.bufferView, 0, 5121, 1, j.bufferViews[img.bufferView].byteLength);
    out.loading++;
    createImageBitmap(new Blob([bytes], {type: img.mimeType || "image/png"})).then(bmp => {
      out.loading--;
      const tex = gl.createTexture();
      gl.bindTexture(gl.TEXTURE_2D, tex);
      gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, bmp);
      gl.generateMipmap(gl.TEXTURE_2D);
      gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
      out[i] = tex;
      done();
    }, () => { out.loading--; done(); });
  });
  return out;
}

// ------------------------------------------------------------- scene --

// Node state: TRS (animated in place), morph weights, world matrices.
function initNodes(j) {
  return (j.nodes || []).map(n => {
    const rest = n.matrix ? decompose(n.matrix) : {t: n.translation || [0, 0, 0], r: n.rotation || [0, 0, 0, 1], s: n.scale || [1, 1, 1]};
    const w = n.weights || j.meshes?.[n.mesh]?.weights;
    return {rest, t: rest.t.slice(), r: rest.r.slice(), s: rest.s.slice(), weights: w ? w.slice() : null, world: M4.identity()};
  });
}

// A node's matrix as TRS (no shear: scale from the columns' lengths).
function decompose(m) {
  const s = [0, 1, 2].map(c => Math.hypot(m[c * 4], m[c * 4 + 1], m[c * 4 + 2]) || 1);
  const r = [[0, 1, 2], [4, 5, 6], [8, 9, 10]].map((col, c) => col.map(k => m[k] / s[c]));
  const tr = r[0][0] + r[1][1] + r[2][2];
  let q;
  if (tr > 0) { const w = Math.sqrt(1 + tr) / 2; q = [(r[1][2] - r[2][1]) / (4 * w), (r[2][0] - r[0][2]) / (4 * w), (r[0][1] - r[1][0]) / (4 * w), w]; }
  else q = [0, 0, 0, 1];
  return {t: [m[12], m[13], m[14]], r: q, s};
}

// World matrices, parents before children.
function updateWorld(j, nodes) {
  const visit = (i, parent) => {
    const n = nodes[i];
    n.world = M4.mul(parent, M4.fromTRS(n.t, n.r, n.s));
    for (const c of j.nodes[i].children || []) visit(c, n.world);
  };
  for (const r of rootNodes(j)) visit(r, M4.identity());
}

function rootNodes(j) {
  const scene = j.scenes?.[j.scene || 0];
  if (scene) return scene.nodes || [];
  const child = new Set((j.nodes || []).flatMap(n => n.children || []));
  return (j.nodes || []).map((_, i) => i).filter(i => !child.has(i));
}

// --------------------------------------------------------- animation --

// Each animation's channels with their keys read, and its length.
function readAnimations(g) {
  return (g.json.animations || []).map((a, k) => {
    const channels = a.channels.map(c => {
      const s = a.samplers[c.sampler];
      return {node: c.target.node, path: c.target.path, interp: s.interpolation || "LINEAR",
        times: accessor(g, s.input).array, values: accessor(g, s.output).array};
    }).filter(c => c.node !== undefined && c.times.length);
    const duration = Math.max(0, ...channels.map(c => c.times[c.times.length - 1]));
    return {name: a.name || "animation " + k, channels, duration};
  });
}

// The key pair around time t: (index before, fraction towards the next).
function keyAt(times, t) {
  const n = times.length;
  if (t <= times[0]) return [0, 0];
  if (t >= times[n - 1]) return [n - 1, 0];
  let lo = 0, hi = n - 1;
  while (hi - lo > 1) { const m = (lo + hi) >> 1; if (times[m] <= t) lo = m; else hi = m; }
  return [lo, (t - times[lo]) / (times[hi] - times[lo])];
}

// Set the channel's node property to its value at time t.
function applyChannel(c, node, t) {
  const [k, f0] = keyAt(c.times, t);
  const f = c.interp === "STEP" ? 0 : f0;
  const n = c.values.length / c.times.length;
  const key = i => Array.from(c.values.subarray(i * n, i * n + n));
  const a = key(k), b = f > 0 ? key(k + 1) : a;
  const v = c.path === "rotation" && f > 0 ? slerp(a, b, f) : a.map((x, i) => x + (b[i] - x) * f);
  if (c.path === "translation") node.t = v;
  else if (c.path === "rotation") node.r = v;
  else if (c.path === "scale") node.s = v;
  else if (c.path === "weights") node.weights = v;
}

// --------------------------------------------------------------- view --

// The view of one .glb in `box`: canvas, controls, render loop.
class View {
  constructor(box, buf) {
    this.g = parseGlb(buf);
    this.g.cache = [];
    this.box = box;
    this.makeDom();
    const gl = this.canvas.getContext("webgl2", {preserveDrawingBuffer: true, antialias: true});
    if (!gl) throw new Error("this browser has no WebGL 2: the 3D view cannot draw");
    this.gl = gl;
    this.prog = program(gl);
    this.build();
    this.anims = readAnimations(this.g);
    this.fillPicker();
    this.fillMorphPicker();
    this.reset();
    this.bindControls();
    this.playing = false; this.time = 0; this.anim = -1;
    // The first animation is picked, at its start; "play" plays it.
    if (this.anims.length) this.setAnimation(0, false);
    this.draw();
  }

  makeDom() {
    const b = this.box;
    b.innerHTML = "<div class='m3bar'><button class='m3reset' title='back to the first view'>reset view</button> " +
      "<label>animation <select class='m3anim'></select></label> <button class='m3play'>play</button> " +
      "<input type='range' class='m3time' min='0' max='1000' value='0' title='time'> <span class='m3t dim'></span>" +
      "<label class='m3morphbox' hidden>morph target <select class='m3morph'></select></label></div>" +
      "<canvas class='mesh3d' width='800' height='480'></canvas><div class='m3info dim'></div>";
    this.canvas = b.querySelector("canvas");
    this.picker = b.querySelector(".m3anim");
    this.playBtn = b.querySelector(".m3play");
    this.slider = b.querySelector(".m3time");
    this.timeLabel = b.querySelector(".m3t");
    this.morphPicker = b.querySelector(".m3morph");
  }

  // GL resources: primitives of every mesh, textures, the joint texture.
  build() {
    const gl = this.gl, j = this.g.json;
    this.meshes = (j.meshes || []).map(m => m.primitives.map(p => buildPrimitive(gl, this.g, p)).filter(Boolean));
    this.textures = loadTextures(gl, this.g, () => this.draw());
    this.nodes = initNodes(j);
    this.skins = (j.skins || []).map(s => ({joints: s.joints,
      ibm: s.inverseBindMatrices !== undefined ? accessor(this.g, s.inverseBindMatrices).array : null}));
    this.jointTex = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D, this.jointTex);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.NEAREST);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.NEAREST);
    updateWorld(j, this.nodes);
    this.bounds = this.measure();
    this.describe();
  }

  // The box around every drawn vertex in the rest pose.
  measure() {
    const lo = [Infinity, Infinity, Infinity], hi = [-Infinity, -Infinity, -Infinity];
    this.drawn().forEach(({node, mesh}) => {
      const skinned = this.g.json.nodes[node].skin !== undefined;
      for (const p of this.meshes[mesh]) {
        for (let i = 0; i < p.base.length; i += 3) {
          const v = skinned ? [p.base[i], p.base[i + 1], p.base[i + 2]] : M4.point(this.nodes[node].world, p.base.subarray(i, i + 3));
          for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], v[k]); hi[k] = Math.max(hi[k], v[k]); }
        }
      }
    });
    if (lo[0] === Infinity) return {center: [0, 0, 0], radius: 1};
    const center = lo.map((l, k) => (l + hi[k]) / 2);
    return {center, radius: Math.max(1e-3, Math.hypot(...hi.map((h, k) => h - lo[k])) / 2)};
  }

  // Nodes that draw a mesh.
  drawn() {
    return (this.g.json.nodes || []).map((n, i) => ({node: i, mesh: n.mesh})).filter(x => x.mesh !== undefined && this.meshes[x.mesh]);
  }

  describe() {
    const prims = this.meshes.flat();
    const verts = prims.reduce((s, p) => s + p.vertices, 0), tris = prims.reduce((s, p) => s + p.count / 3, 0);
    const morphs = Math.max(0, ...prims.map(p => p.targets.length));
    const joints = this.skins.reduce((s, k) => s + k.joints.length, 0);
    const parts = [verts + " vertices", tris + " triangles", (this.g.json.materials || []).length + " materials", (this.g.json.images || []).length + " textures"];
    if (joints) parts.push(joints + " joints");
    if (morphs) parts.push(morphs + " morph targets");
    parts.push((this.g.json.animations || []).length + " animations");
    this.box.querySelector(".m3info").textContent = parts.join(", ") + " — drag: orbit, wheel: zoom";
  }

  fillPicker() {
    const opts = this.anims.map((a, i) => "<option value='" + i + "'>" + escapeHtml(a.name) + " (" + a.duration.toFixed(2) + " s)</option>");
    this.picker.innerHTML = "<option value='-1'>none (rest pose)</option>" + opts.join("");
    if (!this.anims.length) {
      // Nothing to play: the animation controls give way to a note.
      for (const el of [this.picker.closest("label"), this.playBtn, this.slider]) el.hidden = true;
      this.timeLabel.textContent = "no animations";
    }
  }

  // Morph targets that no animation keys (UE4/UE5 morphs): a picker that
  // shows one at full weight.
  fillMorphPicker() {
    const j = this.g.json, keyed = this.anims.some(a => a.channels.some(c => c.path === "weights"));
    const m = (j.meshes || []).findIndex(x => x.primitives.some(p => (p.targets || []).length));
    if (keyed || m < 0) return;
    const n = Math.max(...j.meshes[m].primitives.map(p => (p.targets || []).length));
    const names = j.meshes[m].extras?.targetNames || [];
    this.morphMesh = m;
    this.morphPicker.innerHTML = "<option value='-1'>none</option>" +
      Array.from({length: n}, (_, i) => "<option value='" + i + "'>" + escapeHtml(names[i] || "target " + i) + "</option>").join("");
    this.box.querySelector(".m3morphbox").hidden = false;
    this.morphPicker.onchange = () => this.showMorph(Number(this.morphPicker.value));
  }

  // Morph target i (-1: none) at weight 1 on every node of the morphed mesh.
  showMorph(i) {
    const j = this.g.json;
    this.nodes.forEach((n, k) => {
      if (j.nodes[k].mesh !== this.morphMesh || !n.weights) return;
      n.weights = n.weights.map((_, t) => (t === i ? 1 : 0));
    });
    this.draw();
  }

  // Camera back to looking at the whole mesh from the front, a little above.
  reset() {
    this.yaw = 0.6; this.pitch = 0.25; this.dist = this.bounds.radius * 2.6;
    this.draw();
  }

  bindControls() {
    const c = this.canvas;
    this.box.querySelector(".m3reset").onclick = () => this.reset();
    this.picker.onchange = () => this.setAnimation(Number(this.picker.value), this.playing);
    this.playBtn.onclick = () => this.setPlaying(!this.playing);
    this.slider.oninput = () => {
      this.setPlaying(false);
      const a = this.anims[this.anim];
      if (a) this.setTime(Number(this.slider.value) / 1000 * a.duration);
    };
    let drag = null;
    c.addEventListener("pointerdown", ev => { drag = {x: ev.clientX, y: ev.clientY}; try { c.setPointerCapture(ev.pointerId); } catch (e) { /* synthetic */ } });
    c.addEventListener("pointermove", ev => {
      if (!drag) return;
      this.yaw -= (ev.clientX - drag.x) * 0.01;
      this.pitch = Math.max(-1.55, Math.min(1.55, this.pitch + (ev.clientY - drag.y) * 0.01));
      drag = {x: ev.clientX, y: ev.clientY};
      this.draw();
    });
    const end = () => { drag = null; };
    c.addEventListener("pointerup", end); c.addEventListener("pointercancel", end);
    c.addEventListener("wheel", ev => {
      ev.preventDefault();
      this.dist *= ev.deltaY < 0 ? 1 / 1.15 : 1.15;
      this.dist = Math.max(this.bounds.radius * 0.05, Math.min(this.bounds.radius * 50, this.dist));
      this.draw();
    }, {passive: false});
  }

  // Pick animation i (-1: the rest pose), from its start.
  setAnimation(i, play) {
    this.anim = i;
    this.picker.value = String(i);
    this.restPose();
    this.setTime(0);
    this.setPlaying(play && i >= 0);
  }

  restPose() {
    if (this.morphPicker) this.morphPicker.value = "-1";
    this.nodes.forEach((n, i) => {
      n.t = n.rest.t.slice(); n.r = n.rest.r.slice(); n.s = n.rest.s.slice();
      const w = this.g.json.nodes[i].weights || this.g.json.meshes?.[this.g.json.nodes[i].mesh]?.weights;
      n.weights = w ? w.slice() : null;
    });
  }

  setPlaying(on) {
    this.playing = on && this.anim >= 0;
    this.playBtn.textContent = this.playing ? "pause" : "play";
    if (this.playing) {
      const a = this.anims[this.anim];
      this.t0 = performance.now() / 1000 - this.time;
      const tick = () => {
        if (!this.playing || !this.box.isConnected) { this.playing = false; return; }
        const d = a.duration || 1;
        this.setTime((performance.now() / 1000 - this.t0) % d);
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    }
  }

  // Pose the nodes at time t of the picked animation and draw.
  setTime(t) {
    this.time = t;
    const a = this.anims[this.anim];
    if (a) {
      for (const c of a.channels) if (this.nodes[c.node]) applyChannel(c, this.nodes[c.node], t);
      if (!this.playing || !this.slider.matches(":active")) this.slider.value = String(a.duration ? Math.round(t / a.duration * 1000) : 0);
      this.timeLabel.textContent = t.toFixed(2) + " / " + a.duration.toFixed(2) + " s";
    } else this.timeLabel.textContent = this.anims.length ? "" : "no animations";
    updateWorld(this.g.json, this.nodes);
    this.draw();
  }

  // Skin k's joint matrices (joint world × inverse bind), into the joint
  // texture.
  uploadJoints(k) {
    const gl = this.gl, s = this.skins[k], n = s.joints.length, data = new Float32Array(n * 16);
    s.joints.forEach((jn, i) => {
      const ibm = s.ibm ? s.ibm.subarray(i * 16, i * 16 + 16) : M4.identity();
      data.set(M4.mul(this.nodes[jn].world, ibm), i * 16);
    });
    gl.activeTexture(gl.TEXTURE1);
    gl.bindTexture(gl.TEXTURE_2D, this.jointTex);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA32F, 4, n, 0, gl.RGBA, gl.FLOAT, data);
  }

  // A primitive's positions with the node's morph weights applied.
  morph(p, weights) {
    if (!p.targets.length) return;
    const key = weights ? weights.join(",") : "";
    if (p.morphKey === key) return;
    p.morphKey = key;
    const pos = Float32Array.from(p.base);
    p.targets.forEach((tg, i) => {
      const w = weights ? weights[i] || 0 : 0;
      if (!w) return;
      if (tg.idx) {
        for (let k = 0; k < tg.idx.length; k++) for (let c = 0; c < 3; c++) pos[tg.idx[k] * 3 + c] += w * tg.val[k * 3 + c];
      } else {
        for (let k = 0; k < pos.length; k++) pos[k] += w * tg.val[k];
      }
    });
    const gl = this.gl;
    gl.bindBuffer(gl.ARRAY_BUFFER, p.posBuf);
    gl.bufferSubData(gl.ARRAY_BUFFER, 0, pos);
  }

  // Draw on the next frame (at most once a frame).
  draw() {
    if (this.pending || !this.gl) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.render(); });
  }

  camera() {
    const b = this.bounds, cp = Math.cos(this.pitch);
    const eye = [b.center[0] + this.dist * cp * Math.sin(this.yaw), b.center[1] + this.dist * Math.sin(this.pitch), b.center[2] + this.dist * cp * Math.cos(this.yaw)];
    return M4.lookAt(eye, b.center, [0, 1, 0]);
  }

  render() {
    const gl = this.gl, u = this.prog.u, c = this.canvas;
    const w = c.clientWidth || c.width, h = c.clientHeight || c.height;
    if (c.width !== w || c.height !== h) { c.width = w; c.height = h; }
    gl.viewport(0, 0, c.width, c.height);
    gl.clearColor(0.11, 0.12, 0.14, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.useProgram(this.prog.p);
    const r = this.bounds.radius, view = this.camera();
    gl.uniformMatrix4fv(u.uProj, false, M4.perspective(0.8, c.width / c.height, Math.max(this.dist - r * 2, r * 0.01), this.dist + r * 2));
    gl.uniformMatrix4fv(u.uView, false, view);
    gl.uniformMatrix4fv(u.uViewN, false, view);
    gl.uniform3fv(u.uLight, norm([0.3, 0.5, 1]));
    gl.uniform1i(u.uTex, 0); gl.uniform1i(u.uJoints, 1);
    // Opaque and masked first, then blended ones without depth writes.
    for (const blend of [false, true]) {
      if (blend) { gl.enable(gl.BLEND); gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA); gl.depthMask(false); }
      for (const d of this.drawn()) this.drawNode(d, blend);
      gl.disable(gl.BLEND); gl.depthMask(true);
    }
  }

  drawNode({node, mesh}, blend) {
    const gl = this.gl, u = this.prog.u, n = this.g.json.nodes[node];
    const skinned = n.skin !== undefined && this.skins[n.skin];
    if (skinned) this.uploadJoints(n.skin);
    gl.uniformMatrix4fv(u.uModel, false, this.nodes[node].world);
    for (const p of this.meshes[mesh]) {
      const m = this.g.json.materials?.[p.material] || {};
      if ((m.alphaMode === "BLEND") !== blend) continue;
      this.morph(p, this.nodes[node].weights);
      gl.uniform1i(u.uSkinned, skinned && p.skinned ? 1 : 0);
      const pbr = m.pbrMetallicRoughness || {};
      gl.uniform4fv(u.uBase, pbr.baseColorFactor || [1, 1, 1, 1]);
      gl.uniform1f(u.uCutoff, m.alphaMode === "MASK" ? (m.alphaCutoff ?? 0.5) : -1);
      const tex = pbr.baseColorTexture && this.textures[pbr.baseColorTexture.index];
      gl.uniform1i(u.uHasTex, tex ? 1 : 0);
      gl.activeTexture(gl.TEXTURE0);
      gl.bindTexture(gl.TEXTURE_2D, tex || null);
      gl.bindVertexArray(p.vao);
      gl.drawElements(gl.TRIANGLES, p.count, p.type, 0);
    }
    gl.bindVertexArray(null);
  }
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

// Fetch the .glb at `url` and show it in `box`; a JSON error answer (or a
// renderer error) is shown instead. Resolves to the view, or null.
async function open(box, url, headers) {
  box.innerHTML = "<p class='dim'>building the mesh…</p>";
  try {
    const r = await fetch(url, {headers: headers || {}});
    if (!r.ok) {
      const e = await r.json().catch(() => ({}));
      throw new Error(e.error || "HTTP " + r.status);
    }
    const view = new View(box, await r.arrayBuffer());
    window.Mesh3D.last = view;
    return view;
  } catch (e) {
    box.innerHTML = "<p class='err'>3D view: " + escapeHtml(e.message || e) + "</p>";
    box.dataset.error = e.message || String(e);
    return null;
  }
}

window.Mesh3D = {open, last: null, parseGlb};
})();
