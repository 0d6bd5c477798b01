//! Zen object references resolved to names: what a legacy import needs.

use std::borrow::Cow;
use std::collections::HashSet;

use pakrat_codec::names::{BatchName, MappedName};
use pakrat_io::{Error, Result};

use super::{PackageSource, CORE};
use crate::zen::{Export as ZExport, ObjectIndex, ObjectRef, ZenLayout, ZenPackage};

/// A name as base text and number.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Nm(pub(super) String, pub(super) u32);

impl Nm {
    pub(super) fn plain(s: &str) -> Nm {
        Nm(s.to_string(), 0)
    }
    pub(super) fn full(&self) -> String {
        pakrat_codec::names::with_number(&self.0, self.1)
    }
}

/// An object resolved to names: what a legacy import needs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct Obj {
    pub(super) class_package: Nm,
    pub(super) class_name: Nm,
    pub(super) name: Nm,
    pub(super) outer: Option<Box<Obj>>,
}

impl Obj {
    pub(super) fn package(name: &str) -> Obj {
        Obj::package_nm(Nm::plain(name))
    }
    /// A package whose name carries an FName number (`/Game/M_Cube` 3 for
    /// `/Game/M_Cube_2`).
    pub(super) fn package_nm(name: Nm) -> Obj {
        Obj {
            class_package: Nm::plain(CORE),
            class_name: Nm::plain("Package"),
            name,
            outer: None,
        }
    }
    pub(super) fn path(&self) -> String {
        match &self.outer {
            None => self.name.full(),
            Some(o) => {
                let sep = if o.outer.is_none() { '.' } else { ':' };
                format!("{}{sep}{}", o.path(), self.name.full())
            }
        }
    }
}

pub(super) fn mapped(names: &[BatchName], n: MappedName) -> Result<Nm> {
    let b = names.get(n.index as usize).ok_or_else(|| {
        Error::Other(format!(
            "name index {} outside the name map ({} names)",
            n.index,
            names.len()
        ))
    })?;
    Ok(Nm(b.text.clone(), n.number))
}

pub(super) struct Resolver<'a> {
    src: &'a dyn PackageSource,
    /// Script objects that some CDO names as its class.
    classes: Cow<'a, HashSet<u64>>,
    /// The class of a top-level `*__DelegateSignature` script object:
    /// `Function` (UE5 fixtures), `DelegateFunction` (the UE 4.27 twin).
    pub(super) delegate_class: &'static str,
}

impl<'a> Resolver<'a> {
    pub(super) fn new(src: &'a dyn PackageSource) -> Self {
        Resolver {
            src,
            classes: src.cdo_classes(),
            delegate_class: "Function",
        }
    }

    pub(super) fn script(&self, idx: ObjectIndex, hint_class: Option<&Obj>) -> Result<Obj> {
        let so = self.src.script_objects().ok_or_else(|| {
            Error::Other(
                "script imports need the global container's ScriptObjects (--global global.utoc)"
                    .into(),
            )
        })?;
        let o = so.get(idx).ok_or_else(|| {
            Error::Other(format!(
                "script import {:#018x} is not in the global ScriptObjects",
                idx.0
            ))
        })?;
        let name = mapped(&so.names, o.name)?;
        if o.outer.is_null() {
            return Ok(Obj {
                class_package: Nm::plain(CORE),
                class_name: Nm::plain("Package"),
                name,
                outer: None,
            });
        }
        let outer = self.script(o.outer, None)?;
        let top = outer.outer.is_none();
        let (cp, cn) = if self.classes.contains(&idx.0) {
            (CORE.to_string(), Nm::plain("Class"))
        } else if top && name.0.starts_with("Default__") && !o.cdo_class.is_null() {
            let c = self.script(o.cdo_class, None)?;
            let pkg = c.outer.as_ref().map(|p| p.name.full()).unwrap_or_default();
            (pkg, c.name)
        } else if let Some(h) = hint_class {
            (h.class_package.full(), h.class_name.clone())
        } else if top && name.0.ends_with("__DelegateSignature") {
            (CORE.to_string(), Nm::plain(self.delegate_class))
        } else if !top && outer.class_name.0 == "Class" {
            (CORE.to_string(), Nm::plain("Function"))
        } else if top && is_enum_name(&name.0) {
            (CORE.to_string(), Nm::plain("Enum"))
        } else if top {
            (CORE.to_string(), Nm::plain("ScriptStruct"))
        } else {
            (CORE.to_string(), Nm::plain("Object"))
        };
        Ok(Obj {
            class_package: Nm(cp, 0),
            class_name: cn,
            name,
            outer: Some(Box::new(outer)),
        })
    }

    /// Resolve `idx` as seen from package `pkg` (imported ids `imported`).
    pub(super) fn resolve(
        &self,
        pkg: &ZenPackage,
        imported: &[u64],
        idx: ObjectIndex,
        depth: usize,
    ) -> Result<Obj> {
        if depth > 64 {
            return Err(Error::Other(format!(
                "object references of {} nest deeper than 64",
                pkg.name
            )));
        }
        match idx.get() {
            ObjectRef::Script(_) => self.script(idx, None),
            // The package's own name, with the number its FName keeps.
            ObjectRef::Null => Ok(mapped(&pkg.names, pkg.name_mapped)
                .ok()
                .filter(|n| n.full() == pkg.name)
                .map_or_else(|| Obj::package(&pkg.name), Obj::package_nm)),
            ObjectRef::Export(i) => {
                let e = pkg.exports.get(i as usize).ok_or_else(|| {
                    Error::Other(format!("{}: export {i} out of range", pkg.name))
                })?;
                self.export_obj(pkg, imported, e, depth)
            }
            ObjectRef::Package { raw, .. } if pkg.layout == ZenLayout::Ue4 => {
                let (other, other_imported, ei) =
                    self.src.global_import(raw).ok_or_else(|| {
                        Error::Other(format!(
                            "{}: imports {raw:#018x}{}, the hash of an object's full path in another package, and none of the packages given exports it: add the package that does (its container with --with, or its .uzenasset to the folder)",
                            pkg.name,
                            super::zen_to_legacy_ue4::describe_import(pkg, raw)
                        ))
                    })?;
                self.export_obj(other, other_imported, &other.exports[ei], depth + 1)
            }
            ObjectRef::Package { package, hash, .. } => {
                let id = *imported.get(package as usize).ok_or_else(|| {
                    Error::Other(format!(
                        "{}: imported package {package} outside its {} imported packages",
                        pkg.name,
                        imported.len()
                    ))
                })?;
                let h = *pkg
                    .imported_public_export_hashes
                    .get(hash as usize)
                    .ok_or_else(|| {
                        Error::Other(format!(
                            "{}: public export hash {hash} outside the {} stored",
                            pkg.name,
                            pkg.imported_public_export_hashes.len()
                        ))
                    })?;
                let want = pkg.imported_package_names.get(package as usize).cloned();
                let (other, other_imported) = self.src.package(id).ok_or_else(|| {
                    Error::Other(format!(
                        "{}: imports from package {} ({id:016X}), which is in none of the containers given (add it with --with)",
                        pkg.name,
                        want.as_deref().unwrap_or("?")
                    ))
                })?;
                let e = other
                    .exports
                    .iter()
                    .find(|e| e.public_export_hash == h)
                    .ok_or_else(|| {
                        Error::Other(format!(
                            "{}: no export of {} has public hash {h:016X}",
                            pkg.name, other.name
                        ))
                    })?;
                self.export_obj(other, other_imported, e, depth + 1)
            }
        }
    }

    fn export_obj(
        &self,
        pkg: &ZenPackage,
        imported: &[u64],
        e: &ZExport,
        depth: usize,
    ) -> Result<Obj> {
        let class = if e.class.is_null() {
            Obj {
                class_package: Nm::plain(CORE),
                class_name: Nm::plain("Class"),
                name: Nm::plain("Class"),
                outer: Some(Box::new(Obj::package(CORE))),
            }
        } else {
            self.resolve(pkg, imported, e.class, depth + 1)?
        };
        let outer = self.resolve(pkg, imported, e.outer, depth + 1)?;
        Ok(Obj {
            class_package: Nm(
                class
                    .outer
                    .as_ref()
                    .map(|o| o.name.full())
                    .unwrap_or_default(),
                0,
            ),
            class_name: class.name,
            name: mapped(&pkg.names, e.name)?,
            outer: Some(Box::new(outer)),
        })
    }
}

/// UE enums keep their `E` prefix in reflection (`EFixtureEnum`); structs
/// lose their `F`. An inference: zen does not store an import's class.
fn is_enum_name(n: &str) -> bool {
    let b = n.as_bytes();
    b.len() > 1 && b[0] == b'E' && b[1].is_ascii_uppercase()
}
