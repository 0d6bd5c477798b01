//! Merging a mod's registry into a game's (`pakrat registry merge`).
//!
//! The mod's assets replace the game's assets of the same object path (in
//! place) or are added at the end; the same for package data (by package
//! name) and dependency nodes (by identifier). Names the game lacks are
//! appended to its names, and the mod's tag values to its store, reusing a
//! value or a run of pairs the game already holds, so the game's entries
//! keep their indices and bytes, and merging the same mod again changes
//! nothing.

use std::collections::HashMap;

use pakrat_io::{Error, Result};

use super::asset::Tags;
use super::depends::{AssetIdentifier, DependsNode};
use super::names::NameRef;
use super::store::{ExportPath, NumberlessExportPath, Store, ValueId, ValueKind};
use super::{AssetData, AssetRegistry, PackageData};

/// What a merge did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
pub struct MergeReport {
    /// Assets of the game replaced by the mod's.
    pub assets_replaced: usize,
    /// Assets added.
    pub assets_added: usize,
    /// Package data replaced.
    pub packages_replaced: usize,
    /// Package data added.
    pub packages_added: usize,
    /// Dependency nodes replaced.
    pub nodes_replaced: usize,
    /// Dependency nodes added.
    pub nodes_added: usize,
    /// Names added.
    pub names_added: usize,
}

/// Merge `add` into `base`.
pub fn merge(base: &mut AssetRegistry, add: &AssetRegistry) -> Result<MergeReport> {
    if base.version != add.version
        || base.filter_editor_only != add.filter_editor_only
        || base.store.is_some() != add.store.is_some()
    {
        return Err(Error::Other(format!(
            "the registries differ in form: version {} / {}, filter editor-only data {:?} / {:?}; \
             a merge keeps one layout",
            base.version, add.version, base.filter_editor_only, add.filter_editor_only
        )));
    }
    let names_before = base.names.len();
    let mut m = Merger {
        map: HashMap::new(),
        values: HashMap::new(),
        add,
    };
    let mut report = MergeReport::default();
    m.merge_assets(base, &mut report)?;
    m.merge_packages(base, &mut report);
    m.merge_nodes(base, &mut report);
    report.names_added = base.names.len() - names_before;
    Ok(report)
}

struct Merger<'a> {
    /// Mod name index → game name index.
    map: HashMap<u32, u32>,
    /// Mod tag value → game tag value.
    values: HashMap<u32, ValueId>,
    add: &'a AssetRegistry,
}

impl Merger<'_> {
    fn idx(&mut self, base: &mut AssetRegistry, i: u32) -> u32 {
        if let Some(&j) = self.map.get(&i) {
            return j;
        }
        let text = self.add.names.text(i).unwrap_or("None").to_owned();
        let j = base.names.intern(&text);
        self.map.insert(i, j);
        j
    }

    fn name(&mut self, base: &mut AssetRegistry, n: NameRef) -> NameRef {
        NameRef {
            index: self.idx(base, n.index),
            number: n.number,
        }
    }

    fn merge_assets(&mut self, base: &mut AssetRegistry, report: &mut MergeReport) -> Result<()> {
        let mut at: HashMap<(String, String), usize> = HashMap::new();
        for (i, a) in base.assets.iter().enumerate() {
            at.insert((base.name(a.package_name), base.name(a.asset_name)), i);
        }
        for a in &self.add.assets {
            let mut a2: AssetData = a.clone();
            for n in a2.names_mut() {
                *n = self.name(base, *n);
            }
            let key = (base.name(a2.package_name), base.name(a2.asset_name));
            let old = at.get(&key).copied();
            if let Tags::Handle(h) = a.tags {
                let keep = old.and_then(|i| match base.assets[i].tags {
                    Tags::Handle(h) => Some(h),
                    Tags::Loose(_) => None,
                });
                a2.tags = Tags::Handle(self.tags(base, h, keep)?);
            }
            match old {
                Some(i) => {
                    base.assets[i] = a2;
                    report.assets_replaced += 1;
                }
                None => {
                    at.insert(key, base.assets.len());
                    base.assets.push(a2);
                    report.assets_added += 1;
                }
            }
        }
        Ok(())
    }

    fn merge_packages(&mut self, base: &mut AssetRegistry, report: &mut MergeReport) {
        let mut at: HashMap<String, usize> = HashMap::new();
        for (i, p) in base.packages.iter().enumerate() {
            at.insert(base.name(p.package_name), i);
        }
        for p in &self.add.packages {
            let mut p2: PackageData = p.clone();
            p2.package_name = self.name(base, p.package_name);
            for c in &mut p2.imported_classes {
                *c = self.name(base, *c);
            }
            let key = base.name(p2.package_name);
            match at.get(&key) {
                Some(&i) => {
                    base.packages[i] = p2;
                    report.packages_replaced += 1;
                }
                None => {
                    at.insert(key, base.packages.len());
                    base.packages.push(p2);
                    report.packages_added += 1;
                }
            }
        }
    }

    fn ident(&mut self, base: &mut AssetRegistry, id: &AssetIdentifier) -> AssetIdentifier {
        let mut id2 = id.clone();
        for n in id2.names_mut() {
            *n = self.name(base, *n);
        }
        id2
    }

    fn merge_nodes(&mut self, base: &mut AssetRegistry, report: &mut MergeReport) {
        let mut at: HashMap<AssetIdentifier, usize> = HashMap::new();
        for (i, n) in base.dependencies.nodes.iter().enumerate() {
            at.entry(n.identifier.clone()).or_insert(i);
        }
        // Mod node index → merged node index (new nodes start empty).
        let mut to = Vec::with_capacity(self.add.dependencies.nodes.len());
        for n in &self.add.dependencies.nodes {
            let id = self.ident(base, &n.identifier);
            let i = match at.get(&id) {
                Some(&i) => {
                    report.nodes_replaced += 1;
                    i
                }
                None => {
                    let i = base.dependencies.nodes.len();
                    at.insert(id.clone(), i);
                    base.dependencies.nodes.push(DependsNode {
                        identifier: id,
                        package_deps: Vec::new(),
                        package_flags: Vec::new(),
                        name_deps: Vec::new(),
                        manage_deps: Vec::new(),
                        manage_flags: Vec::new(),
                        referencers: Vec::new(),
                        old_split: n.old_split,
                    });
                    report.nodes_added += 1;
                    i
                }
            };
            to.push(i as i32);
        }
        let map = |v: &[i32]| -> Vec<i32> { v.iter().map(|&x| to[x as usize]).collect() };
        for (k, n) in self.add.dependencies.nodes.iter().enumerate() {
            let i = to[k] as usize;
            let dst = &mut base.dependencies.nodes[i];
            dst.package_deps = map(&n.package_deps);
            dst.package_flags = n.package_flags.clone();
            dst.name_deps = map(&n.name_deps);
            dst.manage_deps = map(&n.manage_deps);
            dst.manage_flags = n.manage_flags.clone();
            dst.old_split = n.old_split;
            for r in map(&n.referencers) {
                if !dst.referencers.contains(&r) {
                    dst.referencers.push(r);
                }
            }
            // The nodes it depends on name it as a referencer.
            let deps: Vec<i32> = dst
                .package_deps
                .iter()
                .chain(&dst.manage_deps)
                .copied()
                .collect();
            for d in deps {
                let refs = &mut base.dependencies.nodes[d as usize].referencers;
                if !refs.contains(&(i as i32)) {
                    refs.push(i as i32);
                }
            }
        }
    }

    /// Copy the pairs a mod handle points at into the game's store; the
    /// game's handle for them (`keep`, the replaced asset's handle, when it
    /// already points at the same pairs: the store does not share runs
    /// between assets, so a run is reused only by the asset that owns it).
    fn tags(&mut self, base: &mut AssetRegistry, h: u64, keep: Option<u64>) -> Result<u64> {
        let (numberless, num, first) = Tags::handle_parts(h);
        let src = self
            .add
            .store
            .as_ref()
            .ok_or_else(|| Error::Other("mod registry without a tag store".into()))?;
        let bad = || {
            Error::Other(format!(
                "mod asset tag handle {h:#x} points past the store's pairs"
            ))
        };
        let mut pairs: Vec<(NameRef, ValueId)> = Vec::with_capacity(num);
        for i in first..first + num {
            let (k, v) = if numberless {
                let &(k, v) = src.numberless_pairs.get(i).ok_or_else(bad)?;
                (
                    NameRef {
                        index: k,
                        number: 0,
                    },
                    v,
                )
            } else {
                *src.pairs.get(i).ok_or_else(bad)?
            };
            let k = self.name(base, k);
            let v = self.value(base, src, v)?;
            pairs.push((k, v));
        }
        let store = store_of(base)?;
        let run: Vec<(u32, ValueId)> = pairs.iter().map(|(k, v)| (k.index, *v)).collect();
        if let Some(k) = keep {
            let (kn, knum, kfirst) = Tags::handle_parts(k);
            let same = kn == numberless
                && knum == num
                && if numberless {
                    store.numberless_pairs.get(kfirst..kfirst + knum) == Some(&run[..])
                } else {
                    store.pairs.get(kfirst..kfirst + knum) == Some(&pairs[..])
                };
            if same {
                return Ok(k);
            }
        }
        let start = if num == 0 {
            0
        } else if numberless {
            store.numberless_pairs.extend(run);
            store.numberless_pairs.len() - num
        } else {
            store.pairs.extend(pairs);
            store.pairs.len() - num
        };
        Ok(Tags::make_handle(numberless, num, start))
    }

    /// Copy one value into the game's store (reusing an equal one).
    fn value(&mut self, base: &mut AssetRegistry, src: &Store, v: ValueId) -> Result<ValueId> {
        if let Some(&got) = self.values.get(&v.0) {
            return Ok(got);
        }
        let got = self.new_value(base, src, v)?;
        self.values.insert(v.0, got);
        Ok(got)
    }

    fn new_value(&mut self, base: &mut AssetRegistry, src: &Store, v: ValueId) -> Result<ValueId> {
        let i = v.index();
        let missing = || Error::Other(format!("mod tag value {:#x} points past its array", v.0));
        let kind = v.kind().ok_or_else(missing)?;
        let idx = match kind {
            ValueKind::AnsiString => {
                let s = src.ansi(i).ok_or_else(missing)?;
                let st = store_of(base)?;
                match (0..st.ansi_offsets.len())
                    .find(|&j| st.ansi(j).as_deref() == Some(s.as_str()))
                {
                    Some(j) => j,
                    None => {
                        st.ansi_offsets.push(st.ansi_strings.len() as u32);
                        st.ansi_strings
                            .extend(pakrat_io::FString::to_latin1(&s).unwrap_or_default());
                        st.ansi_strings.push(0);
                        st.ansi_offsets.len() - 1
                    }
                }
            }
            ValueKind::WideString => {
                let s = src.wide(i).ok_or_else(missing)?;
                let st = store_of(base)?;
                match (0..st.wide_offsets.len())
                    .find(|&j| st.wide(j).as_deref() == Some(s.as_str()))
                {
                    Some(j) => j,
                    None => {
                        st.wide_offsets.push((st.wide_strings.len() / 2) as u32);
                        for u in s.encode_utf16().chain([0]) {
                            st.wide_strings.extend(u.to_le_bytes());
                        }
                        st.wide_offsets.len() - 1
                    }
                }
            }
            ValueKind::NumberlessName => {
                let n = self.idx(base, *src.numberless_names.get(i).ok_or_else(missing)?);
                find_or_push(&mut store_of(base)?.numberless_names, n)
            }
            ValueKind::Name => {
                let n = self.name(base, *src.names.get(i).ok_or_else(missing)?);
                find_or_push(&mut store_of(base)?.names, n)
            }
            ValueKind::NumberlessExportPath => {
                let p = *src.numberless_export_paths.get(i).ok_or_else(missing)?;
                let p = NumberlessExportPath {
                    class_package: p.class_package.map(|c| self.idx(base, c)),
                    class: self.idx(base, p.class),
                    object: self.idx(base, p.object),
                    package: self.idx(base, p.package),
                };
                find_or_push(&mut store_of(base)?.numberless_export_paths, p)
            }
            ValueKind::ExportPath => {
                let p = *src.export_paths.get(i).ok_or_else(missing)?;
                let p = ExportPath {
                    class_package: p.class_package.map(|c| self.name(base, c)),
                    class: self.name(base, p.class),
                    object: self.name(base, p.object),
                    package: self.name(base, p.package),
                };
                find_or_push(&mut store_of(base)?.export_paths, p)
            }
            ValueKind::LocalizedText => {
                let t = src.texts.get(i).ok_or_else(missing)?.clone();
                find_or_push(&mut store_of(base)?.texts, t)
            }
        };
        Ok(ValueId::new(kind, idx))
    }
}

fn store_of(base: &mut AssetRegistry) -> Result<&mut Store> {
    base.store
        .as_mut()
        .ok_or_else(|| Error::Other("game registry without a tag store".into()))
}

fn find_or_push<T: PartialEq>(v: &mut Vec<T>, x: T) -> usize {
    match v.iter().position(|y| *y == x) {
        Some(i) => i,
        None => {
            v.push(x);
            v.len() - 1
        }
    }
}
