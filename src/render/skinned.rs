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

/// One model on the GPU.
struct GpuModel {
    /// The model it was made from (re-uploaded when the type's model changes).
    source: Arc<BoundModel>,
    primitives: Vec<GpuPrimitive>,
    materials: Vec<wgpu::BindGroup>,
    joints: u32,
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
    /// This frame's draws: (type index, first instance, instances).
    draws: Vec<(usize, u32, u32)>,
    scratch: Vec<SkinInstance>,
    order: Vec<usize>,
}

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
        // One buffer per material: a model draws once per material whatever its parts.
        let mut by_material: std::collections::BTreeMap<usize, (Vec<SkinVertex>, Vec<u32>)> =
            std::collections::BTreeMap::new();
        for p in &model.primitives {
            let (vertices, indices) = by_material.entry(p.material).or_default();
            let base = vertices.len() as u32;
            vertices.extend((0..p.positions.len()).map(|i| SkinVertex {
                pos: p.positions[i],
                normal: p.normals.get(i).copied().unwrap_or([0.0, 1.0, 0.0]),
                uv: p.uvs[i],
                color: p.colors[i],
                joints: p.joints[i],
                weights: p.weights[i],
            }));
            indices.extend(p.indices.iter().map(|i| i + base));
        }
        let primitives = by_material
            .into_iter()
            .map(|(material, (vertices, indices))| GpuPrimitive {
                vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("model vertices"),
                    contents: bytemuck::cast_slice(&vertices),
                    usage: wgpu::BufferUsages::VERTEX,
                }),
                indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                    label: Some("model indices"),
                    contents: bytemuck::cast_slice(&indices),
                    usage: wgpu::BufferUsages::INDEX,
                }),
                count: indices.len() as u32,
                material,
            })
            .collect();
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
            primitives,
            materials,
            joints: model.joints.len() as u32,
        }
    }

    /// Uploads this frame's joint matrices and instances (the selected creature tinted),
    /// grouped by model.
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        views: &[SkinnedView],
        skins: &[glam::Mat4],
    ) {
        self.draws.clear();
        self.scratch.clear();
        self.order.clear();
        let models = &self.models;
        self.order.extend((0..views.len()).filter(|i| {
            let c = &views[*i];
            models
                .get(c.model as usize)
                .and_then(Option::as_ref)
                .is_some_and(|g| g.joints == c.skin_count)
        }));
        self.order.sort_by_key(|i| (views[*i].model, *i));
        for &i in &self.order {
            let c = &views[i];
            let m = c.model as usize;
            match self.draws.last_mut() {
                Some((last, _, n)) if *last == m => *n += 1,
                _ => self.draws.push((m, self.scratch.len() as u32, 1)),
            }
            let (recolour, tint) = match c.tint {
                Some(t) => (1.0, t),
                None => (0.0, glam::Vec3::ONE),
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
        self.scratch.len() as u32
    }

    /// Draws every model's instances: one call per (model, material's primitive). The
    /// pipeline is set by the caller (lit or shadow); `materials` binds group 2.
    pub(crate) fn draw(&self, pass: &mut wgpu::RenderPass<'_>, materials: bool, draws: &mut u32) {
        if self.draws.is_empty() {
            return;
        }
        pass.set_bind_group(1, &self.joints_group, &[]);
        pass.set_vertex_buffer(1, self.instances.slice(..));
        for &(m, first, n) in &self.draws {
            let Some(g) = self.models.get(m).and_then(Option::as_ref) else {
                continue;
            };
            for p in &g.primitives {
                if materials {
                    if let Some(mat) = g.materials.get(p.material) {
                        pass.set_bind_group(2, mat, &[]);
                    }
                }
                pass.set_vertex_buffer(0, p.vertices.slice(..));
                pass.set_index_buffer(p.indices.slice(..), wgpu::IndexFormat::Uint32);
                pass.draw_indexed(0..p.count, 0, first..first + n);
                *draws += 1;
            }
        }
    }
}
