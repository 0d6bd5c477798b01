//! Reading a registry as text: asset paths, classes and tag values.

use serde::Serialize;

use super::asset::Tags;
use super::store::ValueKind;
use super::{AssetData, AssetRegistry, NameRef};

/// One asset as shown by `pakrat registry list`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AssetView {
    /// `/Game/Path/Package.Asset`.
    pub object_path: String,
    /// The package.
    pub package: String,
    /// The class (`/Script/Engine.StaticMesh` from `ClassPaths`, else `StaticMesh`).
    pub class: String,
    /// Tag keys and values as text, in stored order.
    pub tags: Vec<(String, String)>,
}

impl AssetRegistry {
    /// A name's text (with its number).
    pub fn name(&self, n: NameRef) -> String {
        self.names.show(n)
    }

    /// The class of an asset as a path (`/Script/Engine.StaticMesh`) or a
    /// short name before `ClassPaths`.
    pub fn class_path(&self, a: &AssetData) -> String {
        match a.class_package {
            Some(p) if self.names.text(p.index) != Some("None") => {
                format!("{}.{}", self.name(p), self.name(a.class))
            }
            _ => self.name(a.class),
        }
    }

    /// The tags of an asset as text.
    pub fn tags(&self, a: &AssetData) -> Vec<(String, String)> {
        match &a.tags {
            Tags::Loose(v) => v
                .iter()
                .map(|(k, s)| (self.name(*k), s.text.clone()))
                .collect(),
            Tags::Handle(h) => {
                let Some(store) = &self.store else {
                    return Vec::new();
                };
                let (numberless, num, first) = Tags::handle_parts(*h);
                let mut out = Vec::with_capacity(num);
                for i in first..first.saturating_add(num) {
                    let pair = if numberless {
                        store.numberless_pairs.get(i).map(|&(k, v)| {
                            (
                                self.name(NameRef {
                                    index: k,
                                    number: 0,
                                }),
                                v,
                            )
                        })
                    } else {
                        store.pairs.get(i).map(|&(k, v)| (self.name(k), v))
                    };
                    if let Some((k, v)) = pair {
                        out.push((k, self.value_text(v)));
                    }
                }
                out
            }
        }
    }

    /// A store value as text (export paths as `Class'/Pkg.Obj'`).
    pub fn value_text(&self, v: super::store::ValueId) -> String {
        let Some(s) = &self.store else {
            return String::new();
        };
        let i = v.index();
        let bare = |x: u32| {
            self.name(NameRef {
                index: x,
                number: 0,
            })
        };
        let path = |class: String, pkg: String, obj: String| {
            let mut out = pkg;
            if obj != "None" {
                out = format!("{out}.{obj}");
            }
            if class != "None" {
                out = format!("{class}'{out}'");
            }
            out
        };
        let text = match v.kind() {
            Some(ValueKind::AnsiString) => s.ansi(i),
            Some(ValueKind::WideString) => s.wide(i),
            Some(ValueKind::NumberlessName) => s.numberless_names.get(i).map(|&n| bare(n)),
            Some(ValueKind::Name) => s.names.get(i).map(|&n| self.name(n)),
            Some(ValueKind::NumberlessExportPath) => s.numberless_export_paths.get(i).map(|p| {
                let class = match p.class_package {
                    Some(cp) if bare(cp) != "None" => format!("{}.{}", bare(cp), bare(p.class)),
                    _ => bare(p.class),
                };
                path(class, bare(p.package), bare(p.object))
            }),
            Some(ValueKind::ExportPath) => s.export_paths.get(i).map(|p| {
                let class = match p.class_package {
                    Some(cp) if self.name(cp) != "None" => {
                        format!("{}.{}", self.name(cp), self.name(p.class))
                    }
                    _ => self.name(p.class),
                };
                path(class, self.name(p.package), self.name(p.object))
            }),
            Some(ValueKind::LocalizedText) => s.texts.get(i).map(|t| t.text.clone()),
            None => None,
        };
        text.unwrap_or_else(|| format!("<value {:#x}>", v.0))
    }

    /// One asset for listing.
    pub fn view(&self, a: &AssetData) -> AssetView {
        let package = self.name(a.package_name);
        AssetView {
            object_path: format!("{package}.{}", self.name(a.asset_name)),
            package,
            class: self.class_path(a),
            tags: self.tags(a),
        }
    }
}
