// skitter scene shaders: sky, lit ground / meshes / capsules with a directional shadow map,
// depth-only shadow passes, and debug lines. Saved edits are hot-reloaded by the window.

struct Globals {
    view_proj: mat4x4<f32>,
    inv_view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    camera_pos: vec4<f32>,
    light_dir: vec4<f32>,     // xyz: unit vector toward the sun
    sky_top: vec4<f32>,
    sky_horizon: vec4<f32>,
    params: vec4<f32>,        // x: time, y: 1 / shadow map size, z: fog density
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var shadow_map: texture_depth_2d;
@group(0) @binding(2) var shadow_sampler: sampler_comparison;

// ---------------------------------------------------------------- lighting

fn shadow_factor(world_pos: vec3<f32>, n: vec3<f32>) -> f32 {
    let biased = world_pos + n * 0.03;
    let p = g.light_view_proj * vec4<f32>(biased, 1.0);
    let ndc = p.xyz / p.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (uv.x < 0.0 || uv.x > 1.0 || uv.y < 0.0 || uv.y > 1.0 || ndc.z > 1.0) {
        return 1.0;
    }
    let texel = g.params.y;
    var sum = 0.0;
    for (var x = -1; x <= 1; x += 1) {
        for (var y = -1; y <= 1; y += 1) {
            let o = vec2<f32>(f32(x), f32(y)) * texel;
            sum += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + o, ndc.z - 0.0015);
        }
    }
    return sum / 9.0;
}

fn shade(albedo: vec3<f32>, n_in: vec3<f32>, world_pos: vec3<f32>, emissive: f32) -> vec3<f32> {
    let n = normalize(n_in);
    let l = normalize(g.light_dir.xyz);
    let ndl = max(dot(n, l), 0.0);
    let shadow = shadow_factor(world_pos, n);
    let hemi = mix(vec3<f32>(0.30, 0.25, 0.20), vec3<f32>(0.50, 0.60, 0.78), n.y * 0.5 + 0.5);
    let sun = vec3<f32>(1.0, 0.92, 0.78) * 1.05;
    let v = normalize(g.camera_pos.xyz - world_pos);
    let rim = pow(1.0 - max(dot(n, v), 0.0), 3.0) * 0.25;
    var c = albedo * (hemi * 0.45 + sun * ndl * shadow) + albedo * rim + albedo * emissive;
    let d = distance(world_pos, g.camera_pos.xyz);
    let fog = 1.0 - exp(-d * g.params.z);
    return mix(c, g.sky_horizon.rgb, clamp(fog, 0.0, 1.0));
}

struct LitOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) color: vec4<f32>,   // rgb albedo, a: emissive
};

@fragment
fn fs_lit(in: LitOut) -> @location(0) vec4<f32> {
    return vec4<f32>(shade(in.color.rgb, in.normal, in.world, in.color.a), 1.0);
}

// ---------------------------------------------------------------- ground

struct GroundIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

fn ground_albedo(p: vec3<f32>, n: vec3<f32>) -> vec3<f32> {
    // Two-metre checker, greener on high ground, rockier on steep ground.
    let cell = floor(p.xz * 0.5);
    let checker = f32((i32(cell.x) + i32(cell.y)) & 1);
    let base = mix(vec3<f32>(0.36, 0.33, 0.24), vec3<f32>(0.32, 0.30, 0.22), checker);
    let green = clamp(p.y * 0.9 + 0.25, 0.0, 0.7);
    let c = mix(base, vec3<f32>(0.24, 0.31, 0.16), green * 0.55);
    let steep = clamp((1.0 - n.y) * 4.0, 0.0, 1.0);
    return mix(c, vec3<f32>(0.33, 0.31, 0.29), steep);
}

fn grid_line(p: vec3<f32>) -> f32 {
    // Anti-aliased one-metre grid: reads distance and speed.
    let q = abs(fract(p.xz - 0.5) - 0.5) / max(fwidth(p.xz), vec2<f32>(1e-4));
    return 1.0 - min(min(q.x, q.y), 1.0);
}

@fragment
fn fs_ground(in: LitOut) -> @location(0) vec4<f32> {
    let albedo = in.color.rgb * (1.0 - 0.18 * grid_line(in.world));
    return vec4<f32>(shade(albedo, in.normal, in.world, 0.0), 1.0);
}

@vertex
fn vs_ground(in: GroundIn) -> LitOut {
    var o: LitOut;
    o.clip = g.view_proj * vec4<f32>(in.pos, 1.0);
    o.world = in.pos;
    o.normal = in.normal;
    o.color = vec4<f32>(ground_albedo(in.pos, in.normal), 0.0);
    return o;
}

@vertex
fn vs_ground_shadow(in: GroundIn) -> @builtin(position) vec4<f32> {
    return g.light_view_proj * vec4<f32>(in.pos, 1.0);
}

// ---------------------------------------------------------------- instanced meshes

struct MeshIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) m0: vec4<f32>,
    @location(3) m1: vec4<f32>,
    @location(4) m2: vec4<f32>,
    @location(5) m3: vec4<f32>,
    @location(6) color: vec4<f32>,
};

@vertex
fn vs_mesh(in: MeshIn) -> LitOut {
    let m = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    let world = m * vec4<f32>(in.pos, 1.0);
    // Normals of a scaled mesh: the inverse-transpose, approximated by dividing by the scale².
    let s2 = vec3<f32>(dot(in.m0.xyz, in.m0.xyz), dot(in.m1.xyz, in.m1.xyz), dot(in.m2.xyz, in.m2.xyz));
    let n = mat3x3<f32>(in.m0.xyz, in.m1.xyz, in.m2.xyz) * (in.normal / max(s2, vec3<f32>(1e-8)));
    var o: LitOut;
    o.clip = g.view_proj * world;
    o.world = world.xyz;
    o.normal = n;
    o.color = in.color;
    return o;
}

@vertex
fn vs_mesh_shadow(in: MeshIn) -> @builtin(position) vec4<f32> {
    let m = mat4x4<f32>(in.m0, in.m1, in.m2, in.m3);
    return g.light_view_proj * (m * vec4<f32>(in.pos, 1.0));
}

// ---------------------------------------------------------------- capsules

struct CapsuleIn {
    @location(0) offset: vec3<f32>,   // unit-sphere direction, y along the axis
    @location(1) t: f32,              // 0: at end a, 1: at end b
    @location(2) a: vec4<f32>,        // xyz end a, w radius
    @location(3) b: vec4<f32>,        // xyz end b
    @location(4) color: vec4<f32>,
};

fn capsule_world(in: CapsuleIn) -> array<vec3<f32>, 2> {
    let axis = in.b.xyz - in.a.xyz;
    let len = length(axis);
    var y = vec3<f32>(0.0, 1.0, 0.0);
    if (len > 1e-6) {
        y = axis / len;
    }
    var helper = vec3<f32>(1.0, 0.0, 0.0);
    if (abs(y.x) > 0.9) {
        helper = vec3<f32>(0.0, 0.0, 1.0);
    }
    let x = normalize(cross(helper, y));
    let z = cross(x, y);
    let n = x * in.offset.x + y * in.offset.y + z * in.offset.z;
    let p = mix(in.a.xyz, in.b.xyz, in.t) + n * in.a.w;
    return array<vec3<f32>, 2>(p, n);
}

@vertex
fn vs_capsule(in: CapsuleIn) -> LitOut {
    let pn = capsule_world(in);
    var o: LitOut;
    o.clip = g.view_proj * vec4<f32>(pn[0], 1.0);
    o.world = pn[0];
    o.normal = pn[1];
    o.color = in.color;
    return o;
}

@vertex
fn vs_capsule_shadow(in: CapsuleIn) -> @builtin(position) vec4<f32> {
    let pn = capsule_world(in);
    return g.light_view_proj * vec4<f32>(pn[0], 1.0);
}

// ---------------------------------------------------------------- sky

struct SkyOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) ndc: vec2<f32>,
};

@vertex
fn vs_sky(@builtin(vertex_index) i: u32) -> SkyOut {
    let uv = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var o: SkyOut;
    o.ndc = uv * 2.0 - 1.0;
    o.clip = vec4<f32>(o.ndc, 1.0, 1.0);
    return o;
}

@fragment
fn fs_sky(in: SkyOut) -> @location(0) vec4<f32> {
    let far = g.inv_view_proj * vec4<f32>(in.ndc, 1.0, 1.0);
    let dir = normalize(far.xyz / far.w - g.camera_pos.xyz);
    let h = clamp(dir.y, -1.0, 1.0);
    var c = mix(g.sky_horizon.rgb, g.sky_top.rgb, pow(clamp(h, 0.0, 1.0), 0.6));
    c = mix(c, g.sky_horizon.rgb * 0.8, clamp(-h * 4.0, 0.0, 1.0));
    let sun = pow(max(dot(dir, normalize(g.light_dir.xyz)), 0.0), 400.0);
    c += vec3<f32>(1.0, 0.9, 0.7) * sun * 2.0;
    return vec4<f32>(c, 1.0);
}

// ---------------------------------------------------------------- debug lines

struct LineIn {
    @location(0) pos: vec3<f32>,
    @location(1) color: vec4<f32>,
};

struct LineOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) color: vec4<f32>,
};

@vertex
fn vs_line(in: LineIn) -> LineOut {
    var o: LineOut;
    o.clip = g.view_proj * vec4<f32>(in.pos, 1.0);
    // Pull lines slightly toward the camera so they win against the surfaces they lie on.
    o.clip.z = o.clip.z - 0.0005 * o.clip.w;
    o.color = in.color;
    return o;
}

@fragment
fn fs_line(in: LineOut) -> @location(0) vec4<f32> {
    return in.color;
}

// ---------------------------------------------------------------- skinned models

// Every model creature's joint matrices (bind-pose scene space to the world), creature by
// creature; an instance's `base` is where its own start.
@group(1) @binding(0) var<storage, read> joints: array<mat4x4<f32>>;
@group(2) @binding(0) var base_tex: texture_2d<f32>;
@group(2) @binding(1) var base_sampler: sampler;
@group(2) @binding(2) var<uniform> base_factor: vec4<f32>;

struct SkinIn {
    @location(0) pos: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) joint: vec4<u32>,
    @location(5) weight: vec4<f32>,
    @location(6) base: u32,
    @location(7) tint: vec4<f32>,    // rgb: the colour (recoloured) or a multiplier, a: emissive
    @location(8) recolour: f32,      // 1: lightness times the tint (instances::recolour), 0: as made
};

struct SkinOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) uv: vec2<f32>,
    @location(3) color: vec4<f32>,
    @location(4) tint: vec4<f32>,
    @location(5) recolour: f32,
};

// Influences come strongest first (see `model::prune_influences`): a vertex stops at its first
// zero weight, so the coarse levels of detail, one or two joints a vertex, read fewer matrices.
fn skin_matrix(in: SkinIn) -> mat4x4<f32> {
    var m = joints[in.base + in.joint.x] * in.weight.x;
    if in.weight.y > 0.0 {
        m += joints[in.base + in.joint.y] * in.weight.y;
        if in.weight.z > 0.0 {
            m += joints[in.base + in.joint.z] * in.weight.z;
            if in.weight.w > 0.0 {
                m += joints[in.base + in.joint.w] * in.weight.w;
            }
        }
    }
    return m;
}

@vertex
fn vs_skinned(in: SkinIn) -> SkinOut {
    let m = skin_matrix(in);
    let world = m * vec4<f32>(in.pos, 1.0);
    // The skin matrices are near-rigid times a uniform scale: their 3x3 turns normals.
    let n = mat3x3<f32>(m[0].xyz, m[1].xyz, m[2].xyz) * in.normal;
    var o: SkinOut;
    o.clip = g.view_proj * world;
    o.world = world.xyz;
    o.normal = n;
    o.uv = in.uv;
    o.color = in.color;
    o.tint = in.tint;
    o.recolour = in.recolour;
    return o;
}

@fragment
fn fs_skinned(in: SkinOut, @builtin(front_facing) front: bool) -> @location(0) vec4<f32> {
    let tex = textureSample(base_tex, base_sampler, in.uv);
    let made = tex.rgb * base_factor.rgb * in.color.rgb;
    let grey = vec3<f32>(dot(made, vec3<f32>(0.2126, 0.7152, 0.0722)) * 2.0);
    let albedo = mix(made, grey, in.recolour) * in.tint.rgb;
    // Both faces are drawn (the files' winding is theirs): a back face shades as its front.
    var n = normalize(in.normal);
    if (!front) {
        n = -n;
    }
    return vec4<f32>(shade(albedo, n, in.world, in.tint.a), 1.0);
}

@vertex
fn vs_skinned_shadow(in: SkinIn) -> @builtin(position) vec4<f32> {
    return g.light_view_proj * (skin_matrix(in) * vec4<f32>(in.pos, 1.0));
}
