//! Name resolution as a mod sees it: creature types and behaviours by bare or qualified
//! name, and the brain a new creature gets.

use crate::script::shared::{BrainKind, Shared};

/// Why a name did not resolve.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub(crate) enum ResolveError {
    /// No loaded mod defines the type.
    #[error("unknown creature type \"{0}\"")]
    UnknownType(String),
    /// Several loaded mods define the bare name.
    #[error("creature type \"{name}\" is ambiguous: {}", .candidates.join(", "))]
    AmbiguousType {
        /// The bare name asked for.
        name: String,
        /// The qualified names it could mean.
        candidates: Vec<String>,
    },
    /// No loaded mod defines the behaviour.
    #[error("unknown behaviour \"{0}\"")]
    UnknownBehaviour(String),
    /// Several loaded mods define the bare name.
    #[error("behaviour \"{0}\" is ambiguous; write it as \"mod/{0}\"")]
    AmbiguousBehaviour(String),
    /// A type's default behaviour does not resolve.
    #[error("{inner} (the default behaviour of \"{qualified}\")")]
    DefaultBehaviour {
        /// The type.
        qualified: String,
        /// Why its behaviour did not resolve.
        inner: Box<ResolveError>,
    },
}

/// Resolves a creature type name as mod `home` sees it: `mod/name`, or a bare name (this
/// mod's first, else the one loaded mod that defines it).
pub(crate) fn resolve_type(
    shared: &Shared,
    home: &str,
    name: &str,
) -> Result<String, ResolveError> {
    if name.contains('/') {
        return if shared.types.contains_key(name) {
            Ok(name.to_string())
        } else {
            Err(ResolveError::UnknownType(name.to_string()))
        };
    }
    let own = format!("{home}/{name}");
    if shared.types.contains_key(&own) {
        return Ok(own);
    }
    let found: Vec<&String> = shared
        .types
        .iter()
        .filter(|(_, m)| m.bare == name)
        .map(|(k, _)| k)
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ResolveError::UnknownType(name.to_string())),
        many => Err(ResolveError::AmbiguousType {
            name: name.to_string(),
            candidates: many.iter().map(|s| s.to_string()).collect(),
        }),
    }
}

/// Resolves a behaviour name relative to `home` (a mod name): (mod, name).
pub(crate) fn resolve_behaviour(
    shared: &Shared,
    home: &str,
    name: &str,
) -> Result<(String, String), ResolveError> {
    if let Some((m, n)) = name.split_once('/') {
        return if shared.behaviours.contains(&(m.to_string(), n.to_string())) {
            Ok((m.to_string(), n.to_string()))
        } else {
            Err(ResolveError::UnknownBehaviour(name.to_string()))
        };
    }
    if shared
        .behaviours
        .contains(&(home.to_string(), name.to_string()))
    {
        return Ok((home.to_string(), name.to_string()));
    }
    let found: Vec<&(String, String)> = shared
        .behaviours
        .iter()
        .filter(|(_, n)| n == name)
        .collect();
    match found.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ResolveError::UnknownBehaviour(name.to_string())),
        _ => Err(ResolveError::AmbiguousBehaviour(name.to_string())),
    }
}

/// The brain a new creature of type `qualified`, spawned by mod `home`, gets, given an
/// optional explicit behaviour: (the mod whose state runs it, which callbacks).
pub(crate) fn brain_for(
    shared: &Shared,
    home: &str,
    qualified: &str,
    behaviour: Option<&str>,
) -> Result<Option<(String, BrainKind)>, ResolveError> {
    let meta = shared
        .types
        .get(qualified)
        .ok_or_else(|| ResolveError::UnknownType(qualified.to_string()))?;
    if let Some(b) = behaviour {
        let (m, n) = resolve_behaviour(shared, home, b)?;
        return Ok(Some((m, BrainKind::Behaviour(n))));
    }
    if let Some(b) = &meta.default_behaviour {
        let (m, n) = resolve_behaviour(shared, &meta.mod_name, b).map_err(|e| {
            ResolveError::DefaultBehaviour {
                qualified: qualified.to_string(),
                inner: Box::new(e),
            }
        })?;
        return Ok(Some((m, BrainKind::Behaviour(n))));
    }
    if meta.has_callbacks {
        return Ok(Some((
            meta.mod_name.clone(),
            BrainKind::Type(qualified.to_string()),
        )));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::script::shared::TypeMeta;

    fn shared() -> Shared {
        let mut s = Shared::default();
        let ty = |m: &str, bare: &str, beh: Option<&str>, cb: bool| TypeMeta {
            mod_name: m.into(),
            bare: bare.into(),
            default_behaviour: beh.map(String::from),
            has_callbacks: cb,
            defined_at: None,
        };
        s.types.insert("a/bug".into(), ty("a", "bug", None, false));
        s.types
            .insert("b/bug".into(), ty("b", "bug", Some("wander"), false));
        s.types
            .insert("b/ant".into(), ty("b", "ant", Some("ghost"), false));
        s.types.insert("c/fly".into(), ty("c", "fly", None, true));
        for (m, n) in [("a", "wander"), ("b", "wander"), ("b", "sit")] {
            s.behaviours.insert((m.into(), n.into()));
        }
        s
    }

    #[test]
    fn types_resolve_own_first_then_unique_then_qualified() {
        let s = shared();
        assert_eq!(resolve_type(&s, "a", "bug"), Ok("a/bug".into()));
        assert_eq!(resolve_type(&s, "c", "ant"), Ok("b/ant".into()));
        assert_eq!(resolve_type(&s, "c", "b/bug"), Ok("b/bug".into()));
        let amb = resolve_type(&s, "c", "bug").expect_err("two mods define bug");
        assert_eq!(
            amb.to_string(),
            "creature type \"bug\" is ambiguous: a/bug, b/bug"
        );
        assert_eq!(
            resolve_type(&s, "a", "x/bug")
                .expect_err("unknown")
                .to_string(),
            "unknown creature type \"x/bug\""
        );
    }

    #[test]
    fn behaviours_resolve_relative_to_their_home() {
        let s = shared();
        assert_eq!(
            resolve_behaviour(&s, "b", "wander"),
            Ok(("b".into(), "wander".into()))
        );
        assert_eq!(
            resolve_behaviour(&s, "c", "sit"),
            Ok(("b".into(), "sit".into()))
        );
        assert_eq!(
            resolve_behaviour(&s, "c", "wander"),
            Err(ResolveError::AmbiguousBehaviour("wander".into()))
        );
        assert_eq!(
            resolve_behaviour(&s, "c", "a/wander"),
            Ok(("a".into(), "wander".into()))
        );
    }

    #[test]
    fn brains_come_from_the_call_the_type_default_or_the_type_itself() {
        let s = shared();
        // Explicit behaviour, resolved from the spawning mod.
        assert_eq!(
            brain_for(&s, "a", "b/bug", Some("wander")),
            Ok(Some(("a".into(), BrainKind::Behaviour("wander".into()))))
        );
        // The type's default, resolved from the type's own mod.
        assert_eq!(
            brain_for(&s, "a", "b/bug", None),
            Ok(Some(("b".into(), BrainKind::Behaviour("wander".into()))))
        );
        assert_eq!(
            brain_for(&s, "a", "c/fly", None),
            Ok(Some(("c".into(), BrainKind::Type("c/fly".into()))))
        );
        assert_eq!(brain_for(&s, "a", "a/bug", None), Ok(None));
        assert_eq!(
            brain_for(&s, "a", "b/ant", None)
                .expect_err("ghost is undefined")
                .to_string(),
            "unknown behaviour \"ghost\" (the default behaviour of \"b/ant\")"
        );
    }
}
