//! GPU skinning of model creatures: each model's triangles and materials uploaded once, every
//! model creature's joint matrices (from the snapshot) in one storage buffer, and one
//! instanced draw per (model, material) whatever the number of creatures — in the shadow
//! pass and the lit pass alike.

use std::sync::Arc;

use bytemuck::{Pod, Zeroable};
use wgpu::util::DeviceExt;

use crate::model::BoundModel;

/// A model creature as a frame draws it: its type's model, its matrices in the frame's
/// skin list, whether it is selected.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct SkinnedView {
    /// Type index (the model).
    pub model: u32,
    /// First skinning matrix.
    pub first_skin: u32,
    /// Number of matrices.
    pub skin_count: u32,
    /// Drawn highlighted.
    pub selected: bool,
    /// The colour it is recoloured in (`None`: as made).
    pub tint: Option<glam::Vec3>,
}

/// A skinned vertex: bind-pose scene-space position and normal, texture coordinates,
/// vertex colour, four joints and their weights.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct SkinVertex {
    pos: [f32; 3],
    normal: [f32; 3],
    uv: [f32; 2],
    color: [f32; 4],
    joints: [u16; 4],
    weights: [f32; 4],
}

/// One model creature in a draw: where its matrices start in the joint buffer, whether it
/// is recoloured (1: its colours' lightness times the tint's rgb, see
/// `instances::recolour`; 0: as made), and a tint (rgb: the colour, or a multiplier when
/// not recoloured; a: emissive — the selected creature glows).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub(crate) struct SkinInstance {
    base: u32,
    recolour: f32,
    _pad: [u32; 2],
    tint: [f32; 4],
}

pub(crate) const SKIN_VERTEX_ATTRS: [wgpu::VertexAttribute; 6] = wgpu::vertex_attr_array![
    0 => Float32x3, 1 => Float32x3, 2 => Float32x2, 3 => Float32x4, 4 => Uint16x4, 5 => Float32x4
];
/// The instance's `base` at byte 0, `recolour` at 4 and its `tint` after the padding, at
/// byte 16.
pub(crate) const SKIN_INSTANCE_ATTRS: [wgpu::VertexAttribute; 3] = [
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Uint32,
        offset: 0,
        shader_location: 6,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32,
        offset: 4,
        shader_location: 8,
    },
    wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x4,
        offset: 16,
        shader_location: 7,
    },
];

/// The vertex buffer layouts of the skinned pipelines.
pub(crate) fn layouts() -> [wgpu::VertexBufferLayout<'static>; 2] {
    [
        wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<SkinVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &SKIN_VERTEX_ATTRS,
        },
        wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<SkinInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &SKIN_INSTANCE_ATTRS,
        },
    ]
}

/// The joints' bind group layout (group 1): the storage buffer of every instance's matrices.
pub(crate) fn joints_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("joints"),
        entries: &[wgpu::BindGroupLayoutEntry {
            binding: 0,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        }],
    })
}

/// A material's bind group layout (group 2): base colour texture, its sampler, the factor.
pub(crate) fn material_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("material"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: true },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
        ],
    })
}

/// One primitive on the GPU.
struct GpuPrimitive {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
    material: usize,
}

/// One level of detail of a model on the GPU: a primitive per material, and the largest
/// distance (bind-pose scene units) between its surface and the full mesh's.
struct GpuLod {
    primitives: Vec<GpuPrimitive>,
    error: f32,
    triangles: u32,
}

/// One model on the GPU.
struct GpuModel {
    /// The model it was made from (re-uploaded when the type's model changes).
    source: Arc<BoundModel>,
    /// Finest first: level 0 is the mesh as made.
    lods: Vec<GpuLod>,
    materials: Vec<wgpu::BindGroup>,
    joints: u32,
    /// The bind pose's bounding sphere (scene space), carried to the world by joint 0.
    centre: glam::Vec3,
    radius: f32,
}

/// What the level of detail of a frame's creatures is chosen from: the camera's eye and the
/// pixels one scene unit covers one unit in front of it. `force` draws every creature at one
/// level (`--lod`: to compare, or to see a level). A creature's shadow is cast by the level
/// it is drawn at: chosen for the shadow map's texels instead, a near creature's shadow
/// would change by a texel, which near the camera is many pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LodView {
    pub eye: glam::Vec3,
    pub pixels_at_1: f32,
    pub force: Option<usize>,
    /// Tint each creature by its level (the `lod` debug layer).
    pub show: bool,
}

/// The `lod` layer's colour of each coarser level (the mesh as made keeps its own).
const LOD_TINTS: [glam::Vec3; MAX_LODS - 1] = [
    glam::Vec3::new(0.35, 1.4, 0.35),
    glam::Vec3::new(1.5, 1.3, 0.2),
    glam::Vec3::new(0.45, 0.5, 1.8),
];

/// A level may be drawn where its error covers at most this many pixels.
pub(crate) const LOD_PIXELS: f32 = 0.75;

/// A draw: a model's level of detail for a run of instances.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Draw {
    model: usize,
    lod: usize,
    first: u32,
    n: u32,
}

/// Skinned drawing state of a renderer.
pub(crate) struct Skinned {
    joints_layout: wgpu::BindGroupLayout,
    material_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    /// Models by creature type index.
    models: Vec<Option<GpuModel>>,
    joints: wgpu::Buffer,
    joints_capacity: u64,
    joints_group: wgpu::BindGroup,
    instances: wgpu::Buffer,
    instances_capacity: u64,
    /// This frame's draws (the lit pass's and the shadow pass's).
    draws: Vec<Draw>,
    scratch: Vec<SkinInstance>,
    /// This frame's drawable creatures: (view, level of detail).
    order: Vec<(usize, usize)>,
}

/// Levels of detail a model keeps at most (the mesh as made and its coarser levels).
pub(crate) const MAX_LODS: usize = 1 + crate::model::LOD_RATIOS.len();

fn storage(
    device: &wgpu::Device,
    label: &str,
    size: u64,
    usage: wgpu::BufferUsages,
) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some(label),
        size,
        usage: usage | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn joints_group(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    buf: &wgpu::Buffer,
) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("joints"),
        layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: buf.as_entire_binding(),
        }],
    })
}

/// A material's merged vertices (skinning influences strongest first) and triangles.
type MaterialMesh = (Vec<SkinVertex>, Vec<u32>);

/// A model's primitives merged per material: a model draws once per material whatever its
/// parts.
fn by_material(
    primitives: &[crate::model::Primitive],
) -> std::collections::BTreeMap<usize, MaterialMesh> {
    let mut out: std::collections::BTreeMap<usize, MaterialMesh> = Default::default();
    for p in primitives {
        let (vertices, indices) = out.entry(p.material).or_default();
        let base = vertices.len() as u32;
        vertices.extend((0..p.positions.len()).map(|i| {
            let (joints, weights) = crate::model::prune_influences(p.joints[i], p.weights[i], 4);
            SkinVertex {
                pos: p.positions[i],
                normal: p.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]),
                uv: p.uvs[i],
                color: p.colors[i],
                joints,
                weights,
            }
        }));
        indices.extend(p.indices.iter().map(|i| i + base));
    }
    out
}

fn gpu_primitive(
    device: &wgpu::Device,
    material: usize,
    vertices: &[SkinVertex],
    indices: &[u32],
) -> GpuPrimitive {
    GpuPrimitive {
        vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("model vertices"),
            contents: bytemuck::cast_slice(vertices),
            usage: wgpu::BufferUsages::VERTEX,
        }),
        indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("model indices"),
            contents: bytemuck::cast_slice(indices),
            usage: wgpu::BufferUsages::INDEX,
        }),
        count: indices.len() as u32,
        material,
    }
}

/// A level of detail before upload: per material, its vertices and triangles; its error.
type Level = (Vec<(usize, Vec<SkinVertex>, Vec<u32>)>, f32);

/// The coarser levels of a model's mesh (per material, `meshes`): those made with the model,
/// or else simplified here, each vertex keeping [`crate::model::LOD_INFLUENCES`] joints.
fn coarser_levels(
    model: &crate::model::Model,
    meshes: &std::collections::BTreeMap<usize, MaterialMesh>,
) -> Vec<Level> {
    if !model.lods.is_empty() {
        return model
            .lods
            .iter()
            .map(|l| {
                let parts = by_material(&l.primitives)
                    .into_iter()
                    .map(|(m, (v, i))| (m, v, i))
                    .collect();
                (parts, l.error)
            })
            .collect();
    }
    let mut levels: Vec<Level> = vec![(Vec::new(), 0.0); crate::model::LOD_RATIOS.len()];
    for (&material, (vertices, indices)) in meshes {
        let field = |f: fn(&SkinVertex) -> [f32; 3]| vertices.iter().map(f).collect::<Vec<_>>();
        let (pos, nrm) = (field(|v| v.pos), field(|v| v.normal));
        let joints: Vec<[u16; 4]> = vertices.iter().map(|v| v.joints).collect();
        let weights: Vec<[f32; 4]> = vertices.iter().map(|v| v.weights).collect();
        let lods = crate::model::mesh_lods(&pos, &nrm, &joints, &weights, indices);
        for (level, l) in levels.iter_mut().zip(lods) {
            let verts = l
                .vertices
                .iter()
                .map(|&i| {
                    let mut v = vertices[i as usize];
                    (v.joints, v.weights) =
                        crate::model::prune_influences(v.joints, v.weights, l.influences);
                    v
                })
                .collect();
            level.1 = level.1.max(l.error);
            level.0.push((material, verts, l.indices));
        }
    }
    levels
}

/// A model's levels of detail on the GPU (the mesh as made, then each coarser level that
/// drops at least a fifth of the triangles of the one before), and its bind pose's bounding
/// sphere.
fn upload_lods(
    device: &wgpu::Device,
    model: &crate::model::Model,
) -> (Vec<GpuLod>, glam::Vec3, f32) {
    let meshes = by_material(&model.primitives);
    let (mut lo, mut hi) = (glam::Vec3::splat(f32::MAX), glam::Vec3::splat(f32::MIN));
    for (v, _) in meshes.values() {
        for x in v {
            lo = lo.min(x.pos.into());
            hi = hi.max(x.pos.into());
        }
    }
    let centre = if lo.x <= hi.x {
        (lo + hi) * 0.5
    } else {
        glam::Vec3::ZERO
    };
    let radius = meshes
        .values()
        .flat_map(|(v, _)| v.iter())
        .map(|x| centre.distance(x.pos.into()))
        .fold(0.0f32, f32::max);
    let full = GpuLod {
        primitives: meshes
            .iter()
            .map(|(m, (v, i))| gpu_primitive(device, *m, v, i))
            .collect(),
        error: 0.0,
        triangles: meshes.values().map(|(_, i)| i.len() as u32 / 3).sum(),
    };
    let mut lods = vec![full];
    for (level, error) in coarser_levels(model, &meshes) {
        let triangles = level
            .iter()
            .map(|(_, _, i)| i.len() as u32 / 3)
            .sum::<u32>();
        let last = lods.last().map_or(0, |l| l.triangles);
        if triangles == 0 || triangles * 5 > last * 4 {
            continue;
        }
        let primitives = level
            .iter()
            .map(|(m, v, i)| gpu_primitive(device, *m, v, i))
            .collect();
        lods.push(GpuLod {
            primitives,
            error,
            triangles,
        });
    }
    (lods, centre, radius)
}

/// The coarsest of `lods` whose error, at `scale` pixels a scene unit, covers at most
/// [`LOD_PIXELS`].
fn pick_lod(lods: &[GpuLod], scale: f32) -> usize {
    lods.iter()
        .rposition(|l| l.error * scale <= LOD_PIXELS)
        .unwrap_or(0)
}

impl Skinned {
    pub(crate) fn new(device: &wgpu::Device) -> Skinned {
        let joints_layout = joints_layout(device);
        let material_layout = material_layout(device);
        let joints_capacity = 64 * 256;
        let joints = storage(
            device,
            "joints",
            joints_capacity,
            wgpu::BufferUsages::STORAGE,
        );
        let joints_group = joints_group(device, &joints_layout, &joints);
        let instances_capacity = 4096;
        Skinned {
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("model textures"),
                address_mode_u: wgpu::AddressMode::Repeat,
                address_mode_v: wgpu::AddressMode::Repeat,
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                ..Default::default()
            }),
            instances: storage(
                device,
                "skin instances",
                instances_capacity,
                wgpu::BufferUsages::VERTEX,
            ),
            instances_capacity,
            joints_layout,
            material_layout,
            models: Vec::new(),
            joints,
            joints_capacity,
            joints_group,
            draws: Vec::new(),
            scratch: Vec::new(),
            order: Vec::new(),
        }
    }

    pub(crate) fn joints_layout(&self) -> &wgpu::BindGroupLayout {
        &self.joints_layout
    }

    pub(crate) fn material_layout(&self) -> &wgpu::BindGroupLayout {
        &self.material_layout
    }

    /// Uploads the models of the world's types (index = type index) that changed.
    pub(crate) fn set_models<'a>(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        models: impl Iterator<Item = Option<&'a Arc<BoundModel>>>,
    ) {
        let mut n = 0;
        for (i, m) in models.enumerate() {
            n = i + 1;
            if self.models.len() <= i {
                self.models.resize_with(i + 1, || None);
            }
            let same = match (&self.models[i], m) {
                (Some(g), Some(m)) => Arc::ptr_eq(&g.source, m),
                (None, None) => true,
                _ => false,
            };
            if !same {
                self.models[i] = m.map(|m| self.upload(device, queue, m));
            }
        }
        self.models.truncate(n);
    }

    fn upload(&self, device: &wgpu::Device, queue: &wgpu::Queue, m: &Arc<BoundModel>) -> GpuModel {
        let model = &m.model;
        let (lods, centre, radius) = upload_lods(device, model);
        let materials = model
            .materials
            .iter()
            .map(|mat| {
                let (w, h, rgba) = match &mat.texture {
                    Some(t) => (t.width, t.height, t.rgba.as_slice()),
                    None => (1, 1, &[255u8, 255, 255, 255][..]),
                };
                let tex = device.create_texture_with_data(
                    queue,
                    &wgpu::TextureDescriptor {
                        label: Some("model texture"),
                        size: wgpu::Extent3d {
                            width: w,
                            height: h,
                            depth_or_array_layers: 1,
                        },
                        mip_level_count: 1,
                        sample_count: 1,
                        dimension: wgpu::TextureDimension::D2,
                        format: wgpu::TextureFormat::Rgba8UnormSrgb,
                        usage: wgpu::TextureUsages::TEXTURE_BINDING,
                        view_formats: &[],
                    },
                    wgpu::util::TextureDataOrder::LayerMajor,
                    rgba,
                );
                let factor = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("material"),
                    contents: bytemuck::cast_slice(&mat.base_color),
                    usage: wgpu::BufferUsages::UNIFORM,
                });
                let view = tex.create_view(&Default::default());
                device.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("material"),
                    layout: &self.material_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: wgpu::BindingResource::TextureView(&view),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::Sampler(&self.sampler),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: factor.as_entire_binding(),
                        },
                    ],
                })
            })
            .collect();
        GpuModel {
            source: m.clone(),
            lods,
            materials,
            joints: model.joints.len() as u32,
            centre,
            radius,
        }
    }

    /// Uploads this frame's joint matrices and instances (the selected creature tinted),
    /// grouped by model and level of detail (each creature at the coarsest level whose error
    /// covers under [`LOD_PIXELS`] of the image).
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        views: &[SkinnedView],
        skins: &[glam::Mat4],
        lod: LodView,
    ) {
        self.pick_lods(views, skins, lod);
        self.order.sort_by_key(|&(i, l)| (views[i].model, l, i));
        self.push_instances(views, lod.show);
        let joints: &[u8] = bytemuck::cast_slice(skins);
        if joints.len() as u64 > self.joints_capacity {
            self.joints_capacity = (joints.len() as u64).next_power_of_two();
            self.joints = storage(
                device,
                "joints",
                self.joints_capacity,
                wgpu::BufferUsages::STORAGE,
            );
            self.joints_group = joints_group(device, &self.joints_layout, &self.joints);
        }
        if !joints.is_empty() {
            queue.write_buffer(&self.joints, 0, joints);
        }
        let inst: &[u8] = bytemuck::cast_slice(&self.scratch);
        if inst.len() as u64 > self.instances_capacity {
            self.instances_capacity = (inst.len() as u64).next_power_of_two();
            self.instances = storage(
                device,
                "skin instances",
                self.instances_capacity,
                wgpu::BufferUsages::VERTEX,
            );
        }
        if !inst.is_empty() {
            queue.write_buffer(&self.instances, 0, inst);
        }
    }

    /// `order`: every drawable creature with its level of detail.
    fn pick_lods(&mut self, views: &[SkinnedView], skins: &[glam::Mat4], lod: LodView) {
        self.order.clear();
        for (i, c) in views.iter().enumerate() {
            let Some(g) = self.models.get(c.model as usize).and_then(Option::as_ref) else {
                continue;
            };
            if g.joints != c.skin_count {
                continue;
            }
            if let Some(k) = lod.force {
                self.order.push((i, k.min(g.lods.len() - 1)));
                continue;
            }
            // The body bone carries the mesh's bounds with the creature (a model's first
            // joint may be an IK target or a root left behind).
            let body = g
                .source
                .binding
                .body
                .min(g.joints.saturating_sub(1) as usize);
            let Some(m) = skins.get(c.first_skin as usize + body) else {
                continue;
            };
            // Skin matrices are near-rigid times a uniform scale.
            let scale = m.x_axis.truncate().length();
            let centre = m.transform_point3(g.centre);
            let near = (centre.distance(lod.eye) - g.radius * scale).max(0.05);
            self.order
                .push((i, pick_lod(&g.lods, scale * lod.pixels_at_1 / near)));
        }
    }

    /// The instances of `order` in `scratch`, one draw per run of the same model and level.
    fn push_instances(&mut self, views: &[SkinnedView], show: bool) {
        self.draws.clear();
        self.scratch.clear();
        for &(i, lod) in &self.order {
            let c = &views[i];
            let model = c.model as usize;
            match self.draws.last_mut() {
                Some(d) if d.model == model && d.lod == lod => d.n += 1,
                _ => self.draws.push(Draw {
                    model,
                    lod,
                    first: self.scratch.len() as u32,
                    n: 1,
                }),
            }
            let (recolour, tint) = match (c.tint, lod.checked_sub(1)) {
                (_, Some(k)) if show => (1.0, LOD_TINTS[k.min(LOD_TINTS.len() - 1)]),
                (Some(t), _) => (1.0, t),
                (None, _) => (0.0, glam::Vec3::ONE),
            };
            self.scratch.push(SkinInstance {
                base: c.first_skin,
                recolour,
                _pad: [0; 2],
                tint: if c.selected {
                    (tint * glam::Vec3::new(1.15, 1.1, 0.9))
                        .extend(0.25)
                        .to_array()
                } else {
                    tint.extend(0.0).to_array()
                },
            });
        }
    }

    /// The skeletons of this frame's model creatures as line pairs (each bone to its
    /// parent): a joint's head is its skinning matrix applied to its bind-pose head.
    pub(crate) fn bone_lines(
        &self,
        views: &[SkinnedView],
        skins: &[glam::Mat4],
        out: &mut Vec<super::instances::LineVertex>,
    ) {
        const BONE: [f32; 4] = [0.3, 0.95, 1.0, 1.0];
        for c in views {
            let Some(g) = self.models.get(c.model as usize).and_then(Option::as_ref) else {
                continue;
            };
            let joints = &g.source.model.joints;
            let Some(mats) =
                skins.get(c.first_skin as usize..(c.first_skin + c.skin_count) as usize)
            else {
                continue;
            };
            if mats.len() != joints.len() {
                continue;
            }
            let head = |j: usize| mats[j].transform_point3(joints[j].head());
            for (j, joint) in joints.iter().enumerate() {
                if let Some(p) = joint.parent {
                    for at in [head(p), head(j)] {
                        out.push(super::instances::LineVertex {
                            pos: at.to_array(),
                            color: BONE,
                        });
                    }
                }
            }
        }
    }

    /// Model creatures drawn this frame.
    pub(crate) fn instances(&self) -> u32 {
        self.draws.iter().map(|d| d.n).sum()
    }

    /// Model creatures drawn this frame at each level of detail.
    pub(crate) fn per_lod(&self) -> [u32; MAX_LODS] {
        let mut n = [0; MAX_LODS];
        for d in &self.draws {
            n[d.lod] += d.n;
        }
        n
    }

    /// Triangles of model creatures drawn this frame (in each pass).
    pub(crate) fn triangles(&self) -> u64 {
        self.draws
            .iter()
            .filter_map(|d| {
                let g = self.models.get(d.model).and_then(Option::as_ref)?;
                Some(u64::from(g.lods.get(d.lod)?.triangles) * u64::from(d.n))
            })
            .sum()
    }

    /// Draws every model's instances in the lit pass (`shadow` false: materials bound as group
    /// 2) or the shadow pass: one call per (model, level of detail, material). The pipeline is
    /// set by the caller.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, shadow: bool, draws: &mut u32) {
        if self.draws.is_empty() {
            return;
        }
        pass.set_bind_group(1, &self.joints_group, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        for d in &self.draws {
            let Some(g) = self.models.get(d.model).and_then(Option::as_ref) else {
                continue;
            };
            let Some(level) = g.lods.get(d.lod) else {
                continue;
            };
            for p in &level.primitives {
                if !shadow {
                    if let Some(mat) = g.materials.get(p.material) {
                        pass.set_bind_group(2, mat, &[]);
                    }
                }
                pass.set_vertex_buffer(0, p.vertices.slice(..));
                pass.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..p.count, 0, d.first..d.first + d.n);
                *draws += 1;
            }
        }
    }
}
