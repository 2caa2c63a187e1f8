//! The world's creature types: registering a validated definition under its qualified
//! name (with the model made from it, or the one it brings), and finding types.

use std::sync::Arc;

use super::world::{TypeId, World};
use crate::locomotion::ValidCreatureDef;

/// A registered creature type.
#[derive(Clone, Debug)]
pub struct CreatureType {
    /// Qualified name, `mod/name`.
    pub name: String,
    /// The validated definition.
    pub def: Arc<ValidCreatureDef>,
    /// Its model, when the type has one (drawn skinned; the trace gains each foot's `tip`).
    pub model: Option<Arc<crate::model::BoundModel>>,
    /// Where a model it brings came from and how it was bound (`None`: made from its
    /// definition): what a network viewer loads it again from.
    pub source: Option<Arc<crate::model::ModelSource>>,
    /// Sounds its mod brings for it (`creature.define{ sounds = … }`), decoded; `None`: the
    /// bundled ones.
    pub sounds: Option<Arc<TypeSounds>>,
}

/// A type's own sounds: for each kind, its variations (mono at the mix's rate); an empty
/// kind sounds as bundled.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TypeSounds {
    /// A foot planted.
    pub step: Vec<Arc<[f32]>>,
    /// A foot lifted.
    pub lift: Vec<Arc<[f32]>>,
    /// Hit (`c:hit`).
    pub hit: Vec<Arc<[f32]>>,
    /// A ragdoll's part landing hard.
    pub ragdoll_impact: Vec<Arc<[f32]>>,
    /// Coming down on its feet after a jump or a fall.
    pub land: Vec<Arc<[f32]>>,
    /// Level by how fast a foot, a body or a ragdoll's part came down (m/s), before the
    /// mass's factor (`None`: the bundled curves).
    pub volume: Option<crate::math::Curve>,
    /// Rate by the body's mass (kg) (`None`: heavier is lower, the bundled way).
    pub pitch: Option<crate::math::Curve>,
    /// Sounds for feet on a surface (a level piece's `surface =` tag), by its name: a kind
    /// they leave out sounds as above.
    pub by_surface: Vec<(String, TypeSounds)>,
}

impl World {
    /// Registers (or replaces, by qualified name) a creature type, with the model made from
    /// its definition (see [`World::set_type_model`] for one it brings).
    pub fn register_type(&mut self, name: &str, def: ValidCreatureDef) -> TypeId {
        let model = Some(Arc::new(super::generated_model(name, &def)));
        let def = Arc::new(def);
        if let Some(i) = self.types.iter().position(|t| t.name == name) {
            self.types[i].def = def;
            self.types[i].model = model;
            self.types[i].source = None;
            self.types[i].sounds = None;
            return TypeId(i as u32);
        }
        self.types.push(CreatureType {
            name: name.to_string(),
            def,
            model,
            source: None,
            sounds: None,
        });
        TypeId(self.types.len() as u32 - 1)
    }

    /// Gives type `id` its own sounds (or takes them away).
    pub fn set_type_sounds(&mut self, id: TypeId, sounds: Option<Arc<TypeSounds>>) {
        if let Some(t) = self.types.get_mut(id.0 as usize) {
            t.sounds = sounds;
        }
    }

    /// Gives type `id` its model (or takes it away).
    pub fn set_type_model(&mut self, id: TypeId, model: Option<Arc<crate::model::BoundModel>>) {
        if let Some(t) = self.types.get_mut(id.0 as usize) {
            t.model = model;
        }
    }

    /// Records where type `id`'s model came from (see [`CreatureType::source`]).
    pub fn set_type_source(&mut self, id: TypeId, source: Option<Arc<crate::model::ModelSource>>) {
        if let Some(t) = self.types.get_mut(id.0 as usize) {
            t.source = source;
        }
    }

    /// The type registered under a qualified name.
    pub fn type_by_name(&self, name: &str) -> Option<TypeId> {
        self.types
            .iter()
            .position(|t| t.name == name)
            .map(|i| TypeId(i as u32))
    }

    /// A registered type.
    pub fn creature_type(&self, id: TypeId) -> Option<&CreatureType> {
        self.types.get(id.0 as usize)
    }

    /// All registered types.
    pub fn types(&self) -> &[CreatureType] {
        &self.types
    }
}
