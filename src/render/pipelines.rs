//! The scene's render pipelines, built from one WGSL module: vertex layouts, depth states,
//! the lit, shadow, line and skinned pipelines and their layouts (rebuilt on a shader
//! reload).

use std::borrow::Cow;

use super::gpu::DEPTH_FORMAT;
use super::instances::{CapsuleInstance, LineVertex, MeshInstance};
use super::mesh::{CapsuleVertex, Vertex};

/// Every render pipeline of the scene shader.
pub(super) struct Pipelines {
    pub(super) sky: wgpu::RenderPipeline,
    pub(super) ground: wgpu::RenderPipeline,
    pub(super) mesh: wgpu::RenderPipeline,
    pub(super) capsule: wgpu::RenderPipeline,
    pub(super) lines: wgpu::RenderPipeline,
    /// Lines drawn over everything (the `bones` layer's skeletons inside their meshes).
    pub(super) overlay: wgpu::RenderPipeline,
    pub(super) ground_shadow: wgpu::RenderPipeline,
    pub(super) mesh_shadow: wgpu::RenderPipeline,
    pub(super) capsule_shadow: wgpu::RenderPipeline,
    pub(super) skinned: wgpu::RenderPipeline,
    pub(super) skinned_shadow: wgpu::RenderPipeline,
}

const VERTEX_ATTRS: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3];
const MESH_INSTANCE_ATTRS: [wgpu::VertexAttribute; 5] = wgpu::vertex_attr_array![2 => Float32x4, 3 => Float32x4, 4 => Float32x4, 5 => Float32x4, 6 => Float32x4];
const CAPSULE_VERTEX_ATTRS: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32];
const CAPSULE_INSTANCE_ATTRS: [wgpu::VertexAttribute; 3] =
    wgpu::vertex_attr_array![2 => Float32x4, 3 => Float32x4, 4 => Float32x4];
const LINE_ATTRS: [wgpu::VertexAttribute; 2] =
    wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4];

fn layout<T>(
    step_mode: wgpu::VertexStepMode,
    attributes: &'static [wgpu::VertexAttribute],
) -> wgpu::VertexBufferLayout<'static> {
    wgpu::VertexBufferLayout {
        array_stride: std::mem::size_of::<T>() as u64,
        step_mode,
        attributes,
    }
}

fn layouts() -> [wgpu::VertexBufferLayout<'static>; 5] {
    use wgpu::VertexStepMode::{Instance, Vertex as PerVertex};
    [
        layout::<Vertex>(PerVertex, &VERTEX_ATTRS),
        layout::<MeshInstance>(Instance, &MESH_INSTANCE_ATTRS),
        layout::<CapsuleVertex>(PerVertex, &CAPSULE_VERTEX_ATTRS),
        layout::<CapsuleInstance>(Instance, &CAPSULE_INSTANCE_ATTRS),
        layout::<LineVertex>(PerVertex, &LINE_ATTRS),
    ]
}

/// A depth test: `write`s depth or not, passing on `compare`.
fn depth(write: bool, compare: wgpu::CompareFunction) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH_FORMAT,
        depth_write_enabled: Some(write),
        depth_compare: Some(compare),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

/// The shadow map's depth state: biased against acne.
fn shadow_depth() -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        bias: wgpu::DepthBiasState {
            constant: 2,
            slope_scale: 2.0,
            clamp: 0.0,
        },
        ..depth(true, wgpu::CompareFunction::Less)
    }
}

/// What every pipeline of one shader shares.
struct PipelineKit<'a> {
    device: &'a wgpu::Device,
    module: wgpu::ShaderModule,
    layout: &'a wgpu::PipelineLayout,
    shadow_layout: &'a wgpu::PipelineLayout,
    color: [Option<wgpu::ColorTargetState>; 1],
}

impl<'a> PipelineKit<'a> {
    fn new(
        device: &'a wgpu::Device,
        layout: &'a wgpu::PipelineLayout,
        shadow_layout: &'a wgpu::PipelineLayout,
        format: wgpu::TextureFormat,
        source: &str,
    ) -> Self {
        PipelineKit {
            device,
            module: device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("scene.wgsl"),
                source: wgpu::ShaderSource::Wgsl(Cow::Borrowed(source)),
            }),
            layout,
            shadow_layout,
            color: [Some(wgpu::ColorTargetState {
                format,
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }
    }

    /// One pipeline; no fragment stage (`fs` None) makes a shadow pass.
    #[allow(clippy::too_many_arguments)] // one per pipeline property, named at each call
    fn make(
        &self,
        label: &str,
        vs: &str,
        fs: Option<&str>,
        buffers: &[Option<wgpu::VertexBufferLayout>],
        topology: wgpu::PrimitiveTopology,
        cull: Option<wgpu::Face>,
        depth_state: wgpu::DepthStencilState,
    ) -> wgpu::RenderPipeline {
        // Shadow passes write the shadow map, so they must not bind it: they get the
        // uniform-only layout.
        let pipeline_layout = if fs.is_some() {
            self.layout
        } else {
            self.shadow_layout
        };
        self.make_in(
            pipeline_layout,
            label,
            vs,
            fs,
            buffers,
            topology,
            cull,
            depth_state,
        )
    }

    /// [`PipelineKit::make`] with its own pipeline layout.
    #[allow(clippy::too_many_arguments)]
    fn make_in(
        &self,
        pipeline_layout: &wgpu::PipelineLayout,
        label: &str,
        vs: &str,
        fs: Option<&str>,
        buffers: &[Option<wgpu::VertexBufferLayout>],
        topology: wgpu::PrimitiveTopology,
        cull: Option<wgpu::Face>,
        depth_state: wgpu::DepthStencilState,
    ) -> wgpu::RenderPipeline {
        self.device
            .create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &self.module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    cull_mode: cull,
                    front_face: wgpu::FrontFace::Ccw,
                    ..Default::default()
                },
                depth_stencil: Some(depth_state),
                multisample: wgpu::MultisampleState::default(),
                fragment: fs.map(|fs| wgpu::FragmentState {
                    module: &self.module,
                    entry_point: Some(fs),
                    compilation_options: Default::default(),
                    targets: &self.color,
                }),
                multiview_mask: None,
                cache: None,
            })
    }
}

pub(super) fn build_pipelines(
    device: &wgpu::Device,
    layout: &wgpu::PipelineLayout,
    shadow_layout: &wgpu::PipelineLayout,
    skin_layouts: &(wgpu::PipelineLayout, wgpu::PipelineLayout),
    format: wgpu::TextureFormat,
    source: &str,
) -> Pipelines {
    let kit = PipelineKit::new(device, layout, shadow_layout, format, source);
    let [sv, si] = super::skinned::layouts();
    let make = |label, vs, fs, buffers: &[_], topology, cull, depth_state| {
        kit.make(label, vs, fs, buffers, topology, cull, depth_state)
    };
    let [v, mi, cv, ci, lv] = layouts();
    let tri = wgpu::PrimitiveTopology::TriangleList;
    let back = Some(wgpu::Face::Back);
    Pipelines {
        sky: make(
            "sky",
            "vs_sky",
            Some("fs_sky"),
            &[],
            tri,
            None,
            depth(false, wgpu::CompareFunction::Always),
        ),
        ground: make(
            "ground",
            "vs_ground",
            Some("fs_ground"),
            &[Some(v.clone())],
            tri,
            back,
            depth(true, wgpu::CompareFunction::Less),
        ),
        mesh: make(
            "mesh",
            "vs_mesh",
            Some("fs_lit"),
            &[Some(v.clone()), Some(mi.clone())],
            tri,
            back,
            depth(true, wgpu::CompareFunction::Less),
        ),
        capsule: make(
            "capsule",
            "vs_capsule",
            Some("fs_lit"),
            &[Some(cv.clone()), Some(ci.clone())],
            tri,
            back,
            depth(true, wgpu::CompareFunction::Less),
        ),
        lines: make(
            "lines",
            "vs_line",
            Some("fs_line"),
            &[Some(lv.clone())],
            wgpu::PrimitiveTopology::LineList,
            None,
            depth(false, wgpu::CompareFunction::LessEqual),
        ),
        overlay: make(
            "overlay lines",
            "vs_line",
            Some("fs_line"),
            &[Some(lv)],
            wgpu::PrimitiveTopology::LineList,
            None,
            depth(false, wgpu::CompareFunction::Always),
        ),
        ground_shadow: make(
            "ground shadow",
            "vs_ground_shadow",
            None,
            &[Some(v.clone())],
            tri,
            None,
            shadow_depth(),
        ),
        mesh_shadow: make(
            "mesh shadow",
            "vs_mesh_shadow",
            None,
            &[Some(v), Some(mi)],
            tri,
            None,
            shadow_depth(),
        ),
        capsule_shadow: make(
            "capsule shadow",
            "vs_capsule_shadow",
            None,
            &[Some(cv), Some(ci)],
            tri,
            None,
            shadow_depth(),
        ),
        // Models: the glTF files' winding is theirs; both faces drawn.
        skinned: kit.make_in(
            &skin_layouts.0,
            "skinned",
            "vs_skinned",
            Some("fs_skinned"),
            &[Some(sv.clone()), Some(si.clone())],
            tri,
            None,
            depth(true, wgpu::CompareFunction::Less),
        ),
        skinned_shadow: kit.make_in(
            &skin_layouts.1,
            "skinned shadow",
            "vs_skinned_shadow",
            None,
            &[Some(sv), Some(si)],
            tri,
            None,
            shadow_depth(),
        ),
    }
}

/// The skinned pipelines' layouts: the scene's groups, the joints (group 1), the material
/// (group 2); the shadow pass without the material.
pub(super) fn skin_pipeline_layouts(
    device: &wgpu::Device,
    scene: &wgpu::BindGroupLayout,
    shadow: &wgpu::BindGroupLayout,
    skinned: &super::skinned::Skinned,
) -> (wgpu::PipelineLayout, wgpu::PipelineLayout) {
    (
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinned"),
            bind_group_layouts: &[
                Some(scene),
                Some(skinned.joints_layout()),
                Some(skinned.material_layout()),
            ],
            immediate_size: 0,
        }),
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("skinned shadow"),
            bind_group_layouts: &[Some(shadow), Some(skinned.joints_layout())],
            immediate_size: 0,
        }),
    )
}

pub(super) fn pipeline_layouts(
    device: &wgpu::Device,
    scene: &wgpu::BindGroupLayout,
    shadow: &wgpu::BindGroupLayout,
) -> (wgpu::PipelineLayout, wgpu::PipelineLayout) {
    (
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("scene"),
            bind_group_layouts: &[Some(scene)],
            immediate_size: 0,
        }),
        device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("shadow"),
            bind_group_layouts: &[Some(shadow)],
            immediate_size: 0,
        }),
    )
}
