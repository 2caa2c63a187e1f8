//! The wgpu renderer: pipelines from `shaders/scene.wgsl`, a directional shadow map, static
//! level buffers, and per-frame instance buffers. A fixed number of draw calls per frame:
//! shadow (ground, boxes, spheres, capsules), sky, ground, boxes, spheres, capsules, lines.

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};
use thiserror::Error;
use wgpu::util::DeviceExt;

use super::camera::OrbitCamera;
use super::instances::{box_instances, FrameInstances, LineVertex};
use super::mesh;
use super::pipelines::{build_pipelines, pipeline_layouts, skin_pipeline_layouts, Pipelines};
use crate::sim::level::Level;

/// Depth format of the main pass.
pub(crate) const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Side of the square shadow map, texels.
const SHADOW_SIZE: u32 = 1024;

/// Why rendering could not start or continue.
#[derive(Debug, Error)]
pub enum RenderError {
    /// No GPU adapter (and no software one).
    #[error("no GPU adapter found ({0}); install Mesa's software Vulkan (apt-get install mesa-vulkan-drivers) or run with --headless")]
    NoAdapter(String),
    /// The device could not be created.
    #[error("could not open the GPU device: {0}")]
    Device(String),
    /// A shader failed to compile.
    #[error("shader error: {0}")]
    Shader(String),
    /// Reading back a frame failed.
    #[error("frame readback failed: {0}")]
    Readback(String),
    /// Writing a file failed.
    #[error("{0}")]
    Io(String),
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    inv_view_proj: [[f32; 4]; 4],
    light_view_proj: [[f32; 4]; 4],
    camera_pos: [f32; 4],
    light_dir: [f32; 4],
    sky_top: [f32; 4],
    sky_horizon: [f32; 4],
    params: [f32; 4],
}

struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    count: u32,
}

/// A growable GPU buffer for per-frame data.
struct Dynamic {
    buffer: wgpu::Buffer,
    capacity: u64,
    usage: wgpu::BufferUsages,
    label: &'static str,
}

impl Dynamic {
    fn new(device: &wgpu::Device, label: &'static str, usage: wgpu::BufferUsages) -> Dynamic {
        let capacity = 4096;
        let buffer = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: capacity,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Dynamic {
            buffer,
            capacity,
            usage,
            label,
        }
    }

    fn write(&mut self, device: &wgpu::Device, queue: &wgpu::Queue, bytes: &[u8]) {
        if bytes.is_empty() {
            return;
        }
        if bytes.len() as u64 > self.capacity {
            self.capacity = (bytes.len() as u64).next_power_of_two();
            self.buffer = device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(self.label),
                size: self.capacity,
                usage: self.usage | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            });
        }
        queue.write_buffer(&self.buffer, 0, bytes);
    }
}

/// Draw statistics of the last frame.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FrameStats {
    /// Draw calls issued.
    pub draw_calls: u32,
    /// Instances drawn (spheres + capsules + boxes).
    pub instances: u32,
    /// Triangles of model creatures drawn in the lit pass.
    pub skinned_triangles: u64,
    /// Model creatures drawn at each level of detail (the mesh as made first).
    pub per_lod: [u32; super::skinned::MAX_LODS],
}

/// Scene rendering into any colour target of `format`.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    format: wgpu::TextureFormat,
    globals: wgpu::Buffer,
    bind_layout: wgpu::BindGroupLayout,
    bind_group: wgpu::BindGroup,
    shadow_layout: wgpu::BindGroupLayout,
    shadow_bind_group: wgpu::BindGroup,
    shadow_view: wgpu::TextureView,
    pipelines: Pipelines,
    /// The last shader error (the last good pipelines keep running).
    pub shader_error: Option<String>,
    sphere: GpuMesh,
    joint: GpuMesh,
    cube: GpuMesh,
    capsule: GpuMesh,
    ground: Option<GpuMesh>,
    boxes: Option<(wgpu::Buffer, u32)>,
    level_version: Option<u64>,
    spheres: Dynamic,
    joints: Dynamic,
    capsules: Dynamic,
    lines: Dynamic,
    counts: (u32, u32, u32, u32),
    /// Overlay lines after the `counts.2` plain ones in the line buffer.
    overlay_lines: u32,
    skinned: super::skinned::Skinned,
    depth: Option<(wgpu::Texture, wgpu::TextureView, (u32, u32))>,
    /// Statistics of the last frame.
    pub stats: FrameStats,
    /// Every model creature drawn at this level of detail (`None`: each at the coarsest
    /// whose error covers under a pixel).
    pub lod_force: Option<usize>,
}

fn gpu_mesh<V: Pod>(device: &wgpu::Device, label: &str, m: &mesh::Mesh<V>) -> GpuMesh {
    GpuMesh {
        vertices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&m.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        }),
        indices: device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some(label),
            contents: bytemuck::cast_slice(&m.indices),
            usage: wgpu::BufferUsages::INDEX,
        }),
        count: m.indices.len() as u32,
    }
}

/// WGSL that does not parse or validate: naga's report, which names file, line and column.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ShaderError(pub String);

/// Checks WGSL with naga; the error names line and column.
pub(crate) fn validate_wgsl(source: &str) -> Result<(), ShaderError> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| ShaderError(e.emit_to_string_with_path(source, "scene.wgsl")))?;
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .map_err(|e| ShaderError(e.emit_to_string_with_path(source, "scene.wgsl")))?;
    Ok(())
}

/// Opens a device on the best adapter (a real GPU, else Mesa's software Vulkan), able to
/// present to `surface` when given.
pub(crate) fn open_device(
    instance: &wgpu::Instance,
    surface: Option<&wgpu::Surface<'_>>,
) -> Result<(wgpu::Adapter, wgpu::Device, wgpu::Queue), RenderError> {
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        force_fallback_adapter: false,
        compatible_surface: surface,
        apply_limit_buckets: false,
    }))
    .map_err(|e| RenderError::NoAdapter(e.to_string()))?;
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        label: Some("skitter"),
        required_features: wgpu::Features::empty(),
        required_limits: wgpu::Limits::downlevel_defaults().using_resolution(adapter.limits()),
        ..Default::default()
    }))
    .map_err(|e| RenderError::Device(e.to_string()))?;
    Ok((adapter, device, queue))
}

/// The uniforms, the shadow map and the bind groups that expose them to the passes.
struct Bindings {
    bind_layout: wgpu::BindGroupLayout,
    bind_group: wgpu::BindGroup,
    shadow_layout: wgpu::BindGroupLayout,
    shadow_bind_group: wgpu::BindGroup,
    globals: wgpu::Buffer,
    shadow_view: wgpu::TextureView,
}

/// Binding 0 of both layouts: the frame's uniforms.
const UNIFORMS_ENTRY: wgpu::BindGroupLayoutEntry = wgpu::BindGroupLayoutEntry {
    binding: 0,
    visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
    ty: wgpu::BindingType::Buffer {
        ty: wgpu::BufferBindingType::Uniform,
        has_dynamic_offset: false,
        min_binding_size: None,
    },
    count: None,
};

/// The scene passes' bindings: uniforms, the shadow map and its comparison sampler.
fn scene_bind_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("globals"),
        entries: &[
            UNIFORMS_ENTRY,
            wgpu::BindGroupLayoutEntry {
                binding: 1,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Depth,
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            },
            wgpu::BindGroupLayoutEntry {
                binding: 2,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Comparison),
                count: None,
            },
        ],
    })
}

fn bindings(device: &wgpu::Device) -> Bindings {
    let bind_layout = scene_bind_layout(device);
    let globals = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("globals"),
        size: std::mem::size_of::<Globals>() as u64,
        usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let shadow = device.create_texture(&wgpu::TextureDescriptor {
        label: Some("shadow map"),
        size: wgpu::Extent3d {
            width: SHADOW_SIZE,
            height: SHADOW_SIZE,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format: DEPTH_FORMAT,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
        view_formats: &[],
    });
    let shadow_view = shadow.create_view(&Default::default());
    let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
        label: Some("shadow"),
        mag_filter: wgpu::FilterMode::Linear,
        min_filter: wgpu::FilterMode::Linear,
        compare: Some(wgpu::CompareFunction::LessEqual),
        ..Default::default()
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("globals"),
        layout: &bind_layout,
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::TextureView(&shadow_view),
            },
            wgpu::BindGroupEntry {
                binding: 2,
                resource: wgpu::BindingResource::Sampler(&sampler),
            },
        ],
    });
    let shadow_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("shadow globals"),
        entries: &[UNIFORMS_ENTRY],
    });
    let shadow_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("shadow globals"),
        layout: &shadow_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: globals.as_entire_binding(),
        }],
    });
    Bindings {
        bind_layout,
        bind_group,
        shadow_layout,
        shadow_bind_group,
        globals,
        shadow_view,
    }
}

impl Renderer {
    /// A renderer drawing into targets of `format`, with the given WGSL (falls back to the
    /// built-in shader if `source` does not validate).
    pub fn new(
        device: wgpu::Device,
        queue: wgpu::Queue,
        format: wgpu::TextureFormat,
        source: &str,
    ) -> Renderer {
        let Bindings {
            bind_layout,
            bind_group,
            shadow_layout,
            shadow_bind_group,
            globals,
            shadow_view,
        } = bindings(&device);
        let (layout, shadow_pipeline_layout) =
            pipeline_layouts(&device, &bind_layout, &shadow_layout);
        let skinned = super::skinned::Skinned::new(&device);
        let skin_layouts = skin_pipeline_layouts(&device, &bind_layout, &shadow_layout, &skinned);
        let (source, shader_error) = match validate_wgsl(source) {
            Ok(()) => (source, None),
            Err(e) => (super::SCENE_WGSL, Some(e.0)),
        };
        let pipelines = build_pipelines(
            &device,
            &layout,
            &shadow_pipeline_layout,
            &skin_layouts,
            format,
            source,
        );
        let usage = wgpu::BufferUsages::VERTEX;
        Renderer {
            sphere: gpu_mesh(&device, "sphere", &mesh::sphere(8, 14)),
            joint: gpu_mesh(&device, "joint", &mesh::sphere(4, 6)),
            cube: gpu_mesh(&device, "cube", &mesh::cube()),
            capsule: gpu_mesh(&device, "capsule", &mesh::capsule(2, 6)),
            spheres: Dynamic::new(&device, "sphere instances", usage),
            joints: Dynamic::new(&device, "joint instances", usage),
            capsules: Dynamic::new(&device, "capsule instances", usage),
            lines: Dynamic::new(&device, "lines", usage),
            device,
            queue,
            format,
            globals,
            bind_layout,
            bind_group,
            shadow_layout,
            shadow_bind_group,
            shadow_view,
            pipelines,
            shader_error,
            ground: None,
            boxes: None,
            level_version: None,
            counts: (0, 0, 0, 0),
            overlay_lines: 0,
            skinned,
            depth: None,
            stats: FrameStats::default(),
            lod_force: None,
        }
    }

    /// The device.
    pub fn device(&self) -> &wgpu::Device {
        &self.device
    }

    /// The queue.
    pub fn queue(&self) -> &wgpu::Queue {
        &self.queue
    }

    /// The colour format drawn into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    /// Rebuilds every pipeline from new WGSL. On an error the last good pipelines stay and
    /// the error is kept in [`Renderer::shader_error`].
    pub fn reload_shader(&mut self, source: &str) -> Result<(), ShaderError> {
        if let Err(e) = validate_wgsl(source) {
            self.shader_error = Some(e.0.clone());
            return Err(e);
        }
        let (layout, shadow_layout) =
            pipeline_layouts(&self.device, &self.bind_layout, &self.shadow_layout);
        let skin_layouts = skin_pipeline_layouts(
            &self.device,
            &self.bind_layout,
            &self.shadow_layout,
            &self.skinned,
        );
        self.pipelines = build_pipelines(
            &self.device,
            &layout,
            &shadow_layout,
            &skin_layouts,
            self.format,
            source,
        );
        self.shader_error = None;
        Ok(())
    }

    /// Uploads the level's static geometry when `version` changed.
    pub fn set_level(&mut self, level: &Level, version: u64) {
        if self.level_version == Some(version) {
            return;
        }
        self.level_version = Some(version);
        self.ground = level
            .ground
            .as_ref()
            .map(|g| gpu_mesh(&self.device, "ground", &mesh::ground(g)));
        let boxes = box_instances(level);
        self.boxes = (!boxes.is_empty()).then(|| {
            (
                self.device
                    .create_buffer_init(&wgpu::util::BufferInitDescriptor {
                        label: Some("boxes"),
                        contents: bytemuck::cast_slice(&boxes),
                        usage: wgpu::BufferUsages::VERTEX,
                    }),
                boxes.len() as u32,
            )
        });
    }

    /// Uploads the models of the world's creature types that are new or changed (each type's
    /// model by its index).
    pub fn set_models(&mut self, types: &[crate::sim::CreatureType]) {
        self.skinned.set_models(
            &self.device,
            &self.queue,
            types.iter().map(|t| t.model.as_ref()),
        );
    }

    /// Uploads this frame's instances and globals for `camera` at `size`.
    pub fn prepare(
        &mut self,
        frame: &FrameInstances,
        camera: &OrbitCamera,
        size: (u32, u32),
        level: &Level,
        time: f32,
    ) {
        self.spheres.write(
            &self.device,
            &self.queue,
            bytemuck::cast_slice(&frame.spheres),
        );
        self.capsules.write(
            &self.device,
            &self.queue,
            bytemuck::cast_slice(&frame.capsules),
        );
        // The `bones` layer: model creatures' skeletons over their meshes.
        let mut bone_lines = Vec::new();
        if frame.bones {
            bone_lines.extend_from_slice(&frame.lines);
            self.skinned
                .bone_lines(&frame.skinned, &frame.skins, &mut bone_lines);
        }
        let lines: &[LineVertex] = if frame.bones {
            &bone_lines
        } else {
            &frame.lines
        };
        self.lines
            .write(&self.device, &self.queue, bytemuck::cast_slice(lines));
        self.joints.write(
            &self.device,
            &self.queue,
            bytemuck::cast_slice(&frame.joints),
        );
        self.counts = (
            frame.spheres.len() as u32,
            frame.capsules.len() as u32,
            frame.lines.len() as u32,
            frame.joints.len() as u32,
        );
        self.overlay_lines = (lines.len() - frame.lines.len()) as u32;
        let aspect = size.0 as f32 / size.1.max(1) as f32;
        let vp = camera.view_proj(aspect);
        let light_dir = Vec3::new(0.45, 0.8, 0.35).normalize();
        // The shadow frustum covers the level (or 40 m around the camera target).
        let (centre, radius) = match &level.ground {
            Some(g) => {
                let w = g.dx * (g.nx - 1) as f32;
                let d = g.dz * (g.nz - 1) as f32;
                (
                    g.origin + Vec3::new(w * 0.5, 0.0, d * 0.5),
                    (w * w + d * d).sqrt() * 0.5 + 2.0,
                )
            }
            None => (camera.target, 40.0),
        };
        let light_view = glam::camera::rh::view::look_at_mat4(
            centre + light_dir * radius * 2.0,
            centre,
            Vec3::Y,
        );
        let light_proj = glam::camera::rh::proj::directx::orthographic(
            -radius,
            radius,
            -radius,
            radius,
            0.1,
            radius * 4.0,
        );
        let eye = camera.eye();
        let lod = super::skinned::LodView {
            eye,
            pixels_at_1: size.1 as f32 * 0.5 / (super::camera::FOV_Y_DEG.to_radians() * 0.5).tan(),
            force: self.lod_force,
            show: frame.lod_tint,
        };
        self.skinned
            .prepare(&self.device, &self.queue, &frame.skinned, &frame.skins, lod);
        let g = Globals {
            view_proj: vp.to_cols_array_2d(),
            inv_view_proj: vp.inverse().to_cols_array_2d(),
            light_view_proj: (light_proj * light_view).to_cols_array_2d(),
            camera_pos: Vec4::new(eye.x, eye.y, eye.z, 1.0).to_array(),
            light_dir: light_dir.extend(0.0).to_array(),
            sky_top: [0.22, 0.42, 0.72, 1.0],
            sky_horizon: [0.70, 0.78, 0.86, 1.0],
            params: [time, 1.0 / SHADOW_SIZE as f32, 0.006, 0.0],
        };
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
    }

    fn depth_view(&mut self, size: (u32, u32)) -> wgpu::TextureView {
        if let Some((_, view, s)) = &self.depth {
            if *s == size {
                return view.clone();
            }
        }
        let tex = self.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("depth"),
            size: wgpu::Extent3d {
                width: size.0.max(1),
                height: size.1.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: DEPTH_FORMAT,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let view = tex.create_view(&Default::default());
        self.depth = Some((tex, view.clone(), size));
        view
    }

    /// Encodes the shadow pass and the scene into `target` (of `size`).
    pub fn encode(
        &mut self,
        encoder: &mut wgpu::CommandEncoder,
        target: &wgpu::TextureView,
        size: (u32, u32),
    ) {
        let depth = self.depth_view(size);
        let (ns, nc, nl, nj) = self.counts;
        let mut draws = 0;
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("shadow"),
                color_attachments: &[],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.shadow_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.shadow_bind_group, &[]);
            self.draw_geometry(&mut pass, true, &mut draws);
        }
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("scene"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: target,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                view: &depth,
                depth_ops: Some(wgpu::Operations {
                    load: wgpu::LoadOp::Clear(1.0),
                    store: wgpu::StoreOp::Store,
                }),
                stencil_ops: None,
            }),
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.bind_group, &[]);
        pass.set_pipeline(&self.pipelines.sky);
        pass.draw(0..3, 0..1);
        draws += 1;
        self.draw_geometry(&mut pass, false, &mut draws);
        if nl > 0 {
            pass.set_pipeline(&self.pipelines.lines);
            pass.set_vertex_buffer(0, self.lines.buffer.slice(..));
            pass.draw(0..nl, 0..1);
            draws += 1;
        }
        if self.overlay_lines > 0 {
            pass.set_pipeline(&self.pipelines.overlay);
            pass.set_vertex_buffer(0, self.lines.buffer.slice(..));
            pass.draw(nl..nl + self.overlay_lines, 0..1);
            draws += 1;
        }
        let boxes = self.boxes.as_ref().map(|b| b.1).unwrap_or(0);
        self.stats = FrameStats {
            draw_calls: draws,
            instances: boxes + ns + nc + nj + self.skinned.instances(),
            skinned_triangles: self.skinned.triangles(),
            per_lod: self.skinned.per_lod(),
        };
    }

    /// Ground, boxes, bodies, joints and legs: with the depth-only pipelines for the shadow map
    /// (joints are too small to cast a useful shadow), else lit.
    fn draw_geometry(&self, pass: &mut wgpu::RenderPass<'_>, shadow: bool, draws: &mut u32) {
        let p = &self.pipelines;
        let (ns, nc, _, nj) = self.counts;
        if let Some(g) = &self.ground {
            pass.set_pipeline(if shadow { &p.ground_shadow } else { &p.ground });
            draw_instanced(pass, g, None, 1, draws);
        }
        pass.set_pipeline(if shadow { &p.mesh_shadow } else { &p.mesh });
        if let Some((buf, n)) = &self.boxes {
            draw_instanced(pass, &self.cube, Some(buf), *n, draws);
        }
        draw_instanced(pass, &self.sphere, Some(&self.spheres.buffer), ns, draws);
        if !shadow {
            draw_instanced(pass, &self.joint, Some(&self.joints.buffer), nj, draws);
        }
        pass.set_pipeline(if shadow {
            &p.capsule_shadow
        } else {
            &p.capsule
        });
        draw_instanced(pass, &self.capsule, Some(&self.capsules.buffer), nc, draws);
        if self.skinned.instances() > 0 {
            pass.set_pipeline(if shadow {
                &p.skinned_shadow
            } else {
                &p.skinned
            });
            self.skinned.draw(pass, shadow, draws);
        }
    }
}

/// Draws `n` instances of `mesh` (instance data from `instances`, if any); nothing when `n` is 0.
fn draw_instanced(
    pass: &mut wgpu::RenderPass<'_>,
    mesh: &GpuMesh,
    instances: Option<&wgpu::Buffer>,
    n: u32,
    draws: &mut u32,
) {
    if n == 0 {
        return;
    }
    pass.set_vertex_buffer(0, mesh.vertices.slice(..));
    if let Some(b) = instances {
        pass.set_vertex_buffer(1, b.slice(..));
    }
    pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
    pass.draw_indexed(0..mesh.count, 0, 0..n);
    *draws += 1;
}
