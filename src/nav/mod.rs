//! Layer 1: navigation — navmesh bake (`rerecast`) and agents, paths and avoidance
//! (`landmass`). Knows nothing of the World: it is given triangles and agent states.

pub(crate) mod agents;
pub(crate) mod avoid;
pub(crate) mod crowd;
pub(crate) mod links;
pub(crate) mod mesh;

pub use agents::{NavAgent, NavAgentState, Navigator};
pub use crowd::CrowdUpdate;
pub use links::{
    bake, Baked, JumpLimitError, JumpSettings, LinkInput, NavLink, GENERATED_ID, GENERATED_KINDS,
};
pub use mesh::{NavInput, NavMesh, NavSettings};
