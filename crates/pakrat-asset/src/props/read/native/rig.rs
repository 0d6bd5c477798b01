//! `URigHierarchy` (Control Rig): the class writes no property stream,
//! only its own data: serialization settings, then (usually in an inner
//! archive with its own name list, optionally Oodle-compressed) the
//! elements in two phases (each element's own data, then the data that
//! links elements: parents), the previous names and parents, the
//! elements' metadata and the components. Layout and version gates
//! (`FControlRigObjectVersion`): CUE4Parse `URigHierarchy.cs`,
//! `RigHierarchyElements.cs`, `FRigCompactTransform.cs` (read for facts),
//! checked byte for byte on the UE 5.8/6.0 fixture (a skeleton's bones).
//! Controls, nulls, curves, connectors and metadata (in `rig_control`)
//! follow the same sources; the fixture has none of them.

use super::bag::bool32;
use super::{field, table};
use crate::props::read::Ctx;
use crate::props::{PropType, Property, Value};
use pakrat_codec::compress::{decompress, Method};
use pakrat_io::{Error, Guid, Reader, Result};

/// `FControlRigObjectVersion`.
pub(super) const CONTROL_RIG: Guid = Guid {
    words: [0xA782_0CFB, 0x20A7_4359, 0x8C54_2C14, 0x9623_CF50],
};
/// The newest `FControlRigObjectVersion` pakrat reads
/// (`OverridesStoreOwnerStructAsHardImport`).
pub(super) const CR_LATEST: i32 = 47;
/// `RigHierarchyV2`: the element hierarchy this reader knows.
const CR_HIERARCHY_V2: i32 = 7;
/// `RigHierarchyMultiParentConstraints`: parent weights per channel.
pub(super) const CR_MULTI_PARENT_CONSTRAINTS: i32 = 8;
/// `RemovedMultiParentParentCache`.
const CR_REMOVED_PARENT_CACHE: i32 = 14;
/// `HierarchyElementMetadata`: metadata in each element.
const CR_ELEMENT_METADATA: i32 = 20;
/// `RigHierarchyStoringPreviousNames`.
const CR_PREVIOUS_NAMES: i32 = 25;
/// `RigHierarchyStoresElementMetadata`: metadata moves to the hierarchy.
pub(super) const CR_STORES_METADATA: i32 = 28;
/// `RigHierarchyIndirectElementStorage`: all keys first, then the data.
const CR_INDIRECT_STORAGE: i32 = 32;
/// `RigHierarchyCompressElements`: the inner element archive.
const CR_COMPRESS_ELEMENTS: i32 = 33;
/// `RigHierarchyStoresComponents`.
const CR_COMPONENTS: i32 = 34;
/// `RigHierarchyCompactTransformSerialization`: stored settings, compact
/// transforms.
const CR_COMPACT_TRANSFORMS: i32 = 35;
/// `RigHierarchyParentContraintWithLabel`.
pub(super) const CR_PARENT_LABEL: i32 = 37;
/// `RigHierarchyPreviousNameAndParentMapUsingHierarchyKey`.
const CR_HIERARCHY_KEY_MAPS: i32 = 38;
/// `RigHierarchySocketSettings`: sockets gain settings whose layout
/// pakrat does not know.
const CR_SOCKET_SETTINGS: i32 = 44;
/// `RigHierarchyTopology`: element counts and a content hash first.
const CR_TOPOLOGY: i32 = 45;

/// Largest decompressed element archive accepted, and its largest ratio
/// to the compressed bytes.
const MAX_INFLATED: u64 = 256 << 20;
const MAX_RATIO: u64 = 128;

/// `ERigElementType` entries, by the name a key stores.
const ELEMENT_TYPES: [&str; 11] = [
    "None",
    "Bone",
    "Null",
    "Space",
    "Control",
    "Curve",
    "RigidBody",
    "Physics",
    "Reference",
    "Connector",
    "Socket",
];

/// `FRigCompactTransform::ERepresentation`.
const REPRESENTATIONS: [&str; 13] = [
    "Float_Zero_Identity_One",
    "Float_Zero_Identity_Uniform",
    "Float_Zero_Identity_NonUniform",
    "Float_Zero_Quat_One",
    "Float_Zero_Quat_Uniform",
    "Float_Zero_Quat_NonUniform",
    "Float_Position_Identity_One",
    "Float_Position_Identity_Uniform",
    "Float_Position_Identity_NonUniform",
    "Float_Position_Quat_One",
    "Float_Position_Quat_Uniform",
    "Float_Position_Quat_NonUniform",
    "Double_Complete",
];

/// What an element is, from its key's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Bone,
    Null,
    Control,
    Curve,
    RigidBody,
    Reference,
    Connector,
    Socket,
}

impl Kind {
    fn from_type(t: &str) -> Option<Kind> {
        Some(match t.strip_prefix("ERigElementType::").unwrap_or(t) {
            "Bone" => Kind::Bone,
            "Null" | "Space" => Kind::Null,
            "Control" => Kind::Control,
            "Curve" => Kind::Curve,
            "RigidBody" | "Physics" => Kind::RigidBody,
            "Reference" => Kind::Reference,
            "Connector" => Kind::Connector,
            "Socket" => Kind::Socket,
            _ => return None,
        })
    }

    /// Elements with a pose (`FRigTransformElement`).
    fn has_pose(self) -> bool {
        !matches!(self, Kind::Curve | Kind::Connector)
    }

    /// `FRigMultiParentElement`: weighted parent constraints.
    fn multi_parent(self) -> bool {
        matches!(self, Kind::Null | Kind::Control)
    }

    /// `FRigSingleParentElement`: one parent key.
    fn single_parent(self) -> bool {
        matches!(
            self,
            Kind::Bone | Kind::RigidBody | Kind::Reference | Kind::Socket
        )
    }
}

/// `FRigHierarchySerializationSettings`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Settings {
    /// The Control Rig version the elements were written with.
    pub(super) version: i32,
    compressed: bool,
    local: bool,
    global: bool,
    initial: bool,
    current: bool,
}

impl Settings {
    fn defaults(version: i32) -> Self {
        Settings {
            version,
            compressed: false,
            local: true,
            global: true,
            initial: true,
            current: true,
        }
    }
}

/// Reads the element data: names come from the package, or (in the inner
/// archive) from the hierarchy's own list as `i32` indices.
pub(super) struct Elems<'c, 'a, 'b> {
    pub(super) ctx: &'c mut Ctx<'a, 'b>,
    unique: Option<Vec<String>>,
    pub(super) s: Settings,
}

/// One element being read: its kind, fields so far, parent count.
struct Elem {
    kind: Kind,
    fields: Vec<Property>,
    parents: usize,
}

pub(super) fn key_ty() -> PropType {
    PropType::Struct("RigElementKey".into())
}

fn u32_field(name: &str, v: u32) -> Property {
    field(name, PropType::UInt32, Value::UInt(u64::from(v)))
}

impl Ctx<'_, '_> {
    /// A custom version: the package's, else (a versionless package) the
    /// latest, else (a versioned package without it) -1.
    pub(super) fn custom_or_latest(&self, key: Guid, latest: i32) -> i32 {
        match self.asset.versions.custom(key) {
            Some(v) => v,
            None if self.asset.versions.custom_from_package => -1,
            None => latest,
        }
    }

    /// The hierarchy: the whole export.
    pub(super) fn rig_hierarchy(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let version = self.custom_or_latest(CONTROL_RIG, CR_LATEST);
        if !(CR_HIERARCHY_V2..=CR_LATEST).contains(&version) {
            return Err(r.unsupported(format!(
                "Control Rig hierarchy of version {version} (pakrat reads {CR_HIERARCHY_V2}..={CR_LATEST})"
            )));
        }
        let mut s = Settings::defaults(version);
        let mut out = Vec::new();
        if version >= CR_COMPACT_TRANSFORMS {
            s = read_settings(r, &mut out)?;
        } else if version >= CR_COMPRESS_ELEMENTS {
            s.compressed = bool32(r, "compressed archive flag")?;
            out.push(field(
                "bUseCompressedArchive",
                PropType::Bool,
                Value::Bool(s.compressed),
            ));
        }
        if !s.compressed {
            let mut e = Elems {
                ctx: self,
                unique: None,
                s,
            };
            out.extend(e.hierarchy(r)?);
            return Ok(out);
        }
        let n = r.i32_count("hierarchy names", 8)?;
        let mut unique = Vec::with_capacity(n);
        for _ in 0..n {
            unique.push(self.fname(r, "hierarchy name")?);
        }
        let size_at = r.offset();
        let size = r.u32("uncompressed element size")?;
        let stored_compressed = bool32(r, "compressed bytes flag")?;
        let n = r.i32_count("element archive", 1)?;
        let names = unique.iter().cloned().map(Value::Name).collect();
        out.push(field(
            "UniqueNames",
            PropType::Array(Box::new(PropType::Name)),
            Value::Array(names),
        ));
        out.push(u32_field("UncompressedSize", size));
        out.push(field(
            "bStoreCompressedBytes",
            PropType::Bool,
            Value::Bool(stored_compressed),
        ));
        let mut e = Elems {
            ctx: self,
            unique: Some(unique),
            s,
        };
        if !stored_compressed {
            if n as u64 != u64::from(size) {
                return Err(Error::invalid(
                    size_at,
                    format!("element archive of {n} bytes, but its size says {size}"),
                ));
            }
            let mut inner = r.sub(r.pos() as u64, n as u64, "element archive")?;
            r.skip(n as u64, "element archive")?;
            out.extend(e.hierarchy(&mut inner)?);
            inner_done(&inner)?;
            return Ok(out);
        }
        out.push(u32_field("CompressedSize", n as u32));
        let stored = r.bytes(n as u64, "compressed element archive")?;
        let buf = inflate(stored, size, size_at)?;
        let mut inner = Reader::new(&buf);
        let in_inner = |e: Error| Error::Other(format!("in the decompressed element archive: {e}"));
        out.extend(e.hierarchy(&mut inner).map_err(in_inner)?);
        inner_done(&inner).map_err(in_inner)?;
        Ok(out)
    }
}

/// The element archive must be used up.
fn inner_done(inner: &Reader<'_>) -> Result<()> {
    if inner.remaining() != 0 {
        return Err(inner.invalid(format!(
            "{} bytes left in the element archive after its data",
            inner.remaining()
        )));
    }
    Ok(())
}

/// Oodle-decompress the element archive, bounded.
fn inflate(stored: &[u8], size: u32, at: u64) -> Result<Vec<u8>> {
    let size = u64::from(size);
    if size > MAX_INFLATED || size > (stored.len() as u64).saturating_mul(MAX_RATIO) {
        return Err(Error::invalid(
            at,
            format!(
                "{} compressed bytes claim {size} bytes decompressed: more than {MAX_RATIO} times their size or {} MiB",
                stored.len(),
                MAX_INFLATED >> 20
            ),
        ));
    }
    if !Method::Oodle.supported() {
        return Err(Error::unsupported(
            at,
            "an Oodle-compressed Control Rig hierarchy: this build of pakrat has no Oodle decoder",
        ));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(size as usize)
        .map_err(|_| Error::Other(format!("cannot allocate {size} bytes")))?;
    out.resize(size as usize, 0);
    decompress(&Method::Oodle, stored, &mut out)
        .map_err(|e| Error::invalid(at, format!("Oodle element archive: {e}")))?;
    Ok(out)
}

/// `FRigHierarchySerializationSettings::Save`: the version, seven bools
/// and the phase.
fn read_settings(r: &mut Reader<'_>, out: &mut Vec<Property>) -> Result<Settings> {
    let at = r.offset();
    let version = r.i32("hierarchy settings version")?;
    if !(CR_COMPACT_TRANSFORMS..=CR_LATEST).contains(&version) {
        return Err(Error::unsupported(
            at,
            format!(
                "Control Rig hierarchy settings of version {version} (pakrat reads {CR_COMPACT_TRANSFORMS}..={CR_LATEST})"
            ),
        ));
    }
    let names = [
        "bIsSerializingToPackage",
        "bUseCompressedArchive",
        "bStoreCompactTransforms",
        "bSerializeLocalTransform",
        "bSerializeGlobalTransform",
        "bSerializeInitialTransform",
        "bSerializeCurrentTransform",
    ];
    let mut fields = vec![field(
        "ControlRigVersion",
        PropType::Int,
        Value::Int(i64::from(version)),
    )];
    let mut flags = [false; 7];
    for (name, flag) in names.iter().zip(flags.iter_mut()) {
        *flag = bool32(r, name)?;
        fields.push(field(name, PropType::Bool, Value::Bool(*flag)));
    }
    let phase = r.u32("serialization phase")?;
    fields.push(u32_field("SerializationPhase", phase));
    out.push(field(
        "SerializationSettings",
        PropType::Struct("RigHierarchySerializationSettings".into()),
        Value::Struct(fields),
    ));
    Ok(Settings {
        version,
        compressed: flags[1],
        local: flags[3],
        global: flags[4],
        initial: flags[5],
        current: flags[6],
    })
}

impl Elems<'_, '_, '_> {
    /// A name: a package `FName`, or an index into the hierarchy's list.
    pub(super) fn name(&self, r: &mut Reader<'_>, what: &str) -> Result<String> {
        let Some(unique) = &self.unique else {
            return self.ctx.fname(r, what);
        };
        let at = r.offset();
        let i = r.i32(what)?;
        usize::try_from(i)
            .ok()
            .and_then(|i| unique.get(i))
            .cloned()
            .ok_or_else(|| {
                Error::invalid(
                    at,
                    format!(
                        "{what}: name index {i} is outside the hierarchy's {} names",
                        unique.len()
                    ),
                )
            })
    }

    /// Bytes a name takes (for checking counts).
    pub(super) fn name_size(&self) -> usize {
        if self.unique.is_some() {
            4
        } else {
            8
        }
    }

    /// `FRigElementKey`: the type (an `ERigElementType` name) and name.
    pub(super) fn key(&self, r: &mut Reader<'_>) -> Result<(Option<Kind>, Value)> {
        let at = r.offset();
        let t = self.name(r, "element type")?;
        let short = t.strip_prefix("ERigElementType::").unwrap_or(&t);
        if !ELEMENT_TYPES.contains(&short) {
            return Err(Error::invalid(
                at,
                format!("element type {t:?} is not an ERigElementType"),
            ));
        }
        let name = self.name(r, "element name")?;
        let v = Value::Struct(vec![
            field(
                "Type",
                PropType::Enum {
                    name: "ERigElementType".into(),
                    underlying: None,
                },
                Value::Enum(format!("ERigElementType::{short}")),
            ),
            field("Name", PropType::Name, Value::Name(name)),
        ]);
        Ok((Kind::from_type(short), v))
    }

    /// A key as a field.
    pub(super) fn key_field(&self, r: &mut Reader<'_>, name: &str) -> Result<Property> {
        Ok(field(name, key_ty(), self.key(r)?.1))
    }

    /// Bytes a key takes.
    pub(super) fn key_size(&self) -> usize {
        2 * self.name_size()
    }

    /// Everything in the element archive.
    fn hierarchy(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let v = self.s.version;
        let mut out = Vec::new();
        if v >= CR_TOPOLOGY {
            out.push(elements_info(r)?);
            let hash = r.u32("loaded content hash")?;
            out.push(u32_field("LoadedContentHash", hash));
        }
        let n = r.i32_count("hierarchy elements", self.key_size())?;
        let per_element = v < CR_INDIRECT_STORAGE;
        let mut elems = Vec::with_capacity(n);
        for i in 0..n {
            let at = r.offset();
            let (kind, key) = self.key(r)?;
            let Some(kind) = kind else {
                return Err(Error::invalid(
                    at,
                    format!("element {i}: type None is not an element"),
                ));
            };
            let mut e = Elem {
                kind,
                fields: vec![field("Key", key_ty(), key)],
                parents: 0,
            };
            if per_element {
                self.static_data(r, &mut e)?;
            }
            elems.push(e);
        }
        if !per_element {
            for e in &mut elems {
                self.static_data(r, e)?;
            }
        }
        for e in &mut elems {
            self.inter_element_data(r, e)?;
        }
        let elems = elems.into_iter().map(|e| Value::Struct(e.fields)).collect();
        out.push(field(
            "Elements",
            PropType::Array(Box::new(PropType::Struct("RigElement".into()))),
            Value::Array(elems),
        ));
        if v >= CR_PREVIOUS_NAMES {
            let hkeys = v >= CR_HIERARCHY_KEY_MAPS;
            out.push(self.key_map(r, "PreviousNameMap", hkeys)?);
            out.push(self.key_map(r, "PreviousParentMap", hkeys)?);
        }
        if v >= CR_STORES_METADATA {
            out.push(self.element_metadata(r)?);
        }
        if v >= CR_COMPONENTS {
            out.extend(self.components(r)?);
        }
        Ok(out)
    }

    /// The element's own data (`ESerializationPhase::StaticData`).
    fn static_data(&mut self, r: &mut Reader<'_>, e: &mut Elem) -> Result<()> {
        let v = self.s.version;
        e.fields.push(self.key_field(r, "LoadedKey")?);
        if (CR_ELEMENT_METADATA..CR_STORES_METADATA).contains(&v) {
            e.fields.push(self.old_metadata(r)?);
        }
        if e.kind.has_pose() {
            let pose = self.pose(r)?;
            e.fields.push(field("PoseStorage", pose_ty(), pose));
        }
        if e.kind.multi_parent() {
            if v < CR_REMOVED_PARENT_CACHE {
                let cache = self.pose(r)?;
                e.fields.push(field("ParentCache", pose_ty(), cache));
            }
            let min = self.key_size() + 8;
            e.parents = r.i32_count("parent constraints", min)?;
        }
        match e.kind {
            Kind::Bone => {
                let t = self.name(r, "bone type")?;
                let t = t.strip_prefix("ERigBoneType::").unwrap_or(&t).to_string();
                e.fields.push(field(
                    "BoneType",
                    PropType::Enum {
                        name: "ERigBoneType".into(),
                        underlying: None,
                    },
                    Value::Enum(format!("ERigBoneType::{t}")),
                ));
            }
            Kind::Control => self.control_data(r, &mut e.fields)?,
            Kind::Curve => self.curve_data(r, &mut e.fields)?,
            Kind::RigidBody => {
                let mass = r.f32("rigid body mass")?;
                e.fields.push(field(
                    "Settings",
                    PropType::Struct("RigRigidBodySettings".into()),
                    Value::Struct(vec![field("Mass", PropType::Float, Value::Float(mass))]),
                ));
            }
            Kind::Connector => {
                let s = self.connector_settings(r)?;
                e.fields.push(field(
                    "Settings",
                    PropType::Struct("RigConnectorSettings".into()),
                    s,
                ));
            }
            Kind::Socket if v >= CR_SOCKET_SETTINGS => {
                return Err(r.unsupported(format!(
                    "socket element settings (Control Rig version {v}): pakrat does not know their layout"
                )));
            }
            Kind::Null | Kind::Reference | Kind::Socket => {}
        }
        Ok(())
    }

    /// The data that links elements (`InterElementData`): parents.
    fn inter_element_data(&mut self, r: &mut Reader<'_>, e: &mut Elem) -> Result<()> {
        if e.kind.single_parent() {
            e.fields.push(self.key_field(r, "ParentKey")?);
        }
        if e.kind.multi_parent() {
            let mut parents = Vec::with_capacity(e.parents);
            for _ in 0..e.parents {
                parents.push(self.parent_constraint(r)?);
            }
            e.fields.push(field(
                "ParentConstraints",
                PropType::Array(Box::new(PropType::Struct(
                    "RigElementParentConstraint".into(),
                ))),
                Value::Array(parents),
            ));
        }
        Ok(())
    }

    /// `FRigCurrentAndInitialTransform`, as the settings select.
    fn pose(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let mut out = Vec::new();
        for (name, on) in [("Current", self.s.current), ("Initial", self.s.initial)] {
            if on {
                let v = self.local_and_global(r)?;
                out.push(field(
                    name,
                    PropType::Struct("RigLocalAndGlobalTransform".into()),
                    v,
                ));
            }
        }
        Ok(Value::Struct(out))
    }

    /// A pose field of controls (`Offset`, `Shape`).
    pub(super) fn pose_field(&mut self, r: &mut Reader<'_>, name: &str) -> Result<Property> {
        Ok(field(name, pose_ty(), self.pose(r)?))
    }

    fn local_and_global(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let mut out = Vec::new();
        for (name, on) in [("Local", self.s.local), ("Global", self.s.global)] {
            if on {
                let v = self.computed(r)?;
                out.push(field(
                    name,
                    PropType::Struct("RigComputedTransform".into()),
                    v,
                ));
            }
        }
        Ok(Value::Struct(out))
    }

    /// `FRigComputedTransform`: before compact transforms the transform
    /// then the dirty flag; after, the flag, then the transform only when
    /// clean.
    fn computed(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        if self.s.version < CR_COMPACT_TRANSFORMS {
            let t = self.transform(r)?;
            let dirty = bool32(r, "transform dirty flag")?;
            return Ok(Value::Struct(vec![
                field("Transform", PropType::Struct("Transform".into()), t),
                field("bDirty", PropType::Bool, Value::Bool(dirty)),
            ]));
        }
        let dirty = bool32(r, "transform dirty flag")?;
        let mut out = vec![field("bDirty", PropType::Bool, Value::Bool(dirty))];
        if !dirty {
            // Without compact transforms the representation byte is still
            // written: `Double_Complete` and the whole transform.
            let t = self.compact_transform(r)?;
            out.push(field(
                "Transform",
                PropType::Struct("RigCompactTransform".into()),
                t,
            ));
        }
        Ok(Value::Struct(out))
    }

    /// `FTransform`: rotation, translation, scale (doubles from UE 5.0).
    pub(super) fn transform(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        Ok(Value::Struct(vec![
            self.table_field(r, "Rotation", "Quat")?,
            self.table_field(r, "Translation", "Vector")?,
            self.table_field(r, "Scale3D", "Vector")?,
        ]))
    }

    /// A field of one of the plain native structs (`Vector`, `Quat` …).
    pub(super) fn table_field(
        &mut self,
        r: &mut Reader<'_>,
        name: &str,
        ty: &str,
    ) -> Result<Property> {
        let fields = table(ty).unwrap_or(&[]);
        let v = self.ctx.table_struct(r, fields)?;
        Ok(field(name, PropType::Struct(ty.into()), v))
    }

    /// `FRigCompactTransform`: a representation byte, then the parts it
    /// says are stored, as floats (or a whole transform).
    fn compact_transform(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let at = r.offset();
        let repr = r.u8("compact transform representation")?;
        let Some(name) = REPRESENTATIONS.get(usize::from(repr)) else {
            return Err(Error::invalid(
                at,
                format!("compact transform representation {repr} (known: 0..=12)"),
            ));
        };
        let mut out = vec![field(
            "Representation",
            PropType::Enum {
                name: "ERepresentation".into(),
                underlying: Some(Box::new(PropType::Byte(None))),
            },
            Value::Enum(format!("ERepresentation::{name}")),
        )];
        if repr == 12 {
            let t = self.transform(r)?;
            out.push(field("Transform", PropType::Struct("Transform".into()), t));
            return Ok(Value::Struct(out));
        }
        // 0..=11: position (zero or stored) × rotation (identity or
        // stored) × scale (one, uniform or non-uniform).
        if repr >= 6 {
            out.push(self.table_field(r, "Translation", "Vector3f")?);
        }
        if (repr % 6) >= 3 {
            out.push(self.table_field(r, "Rotation", "Quat4f")?);
        }
        match repr % 3 {
            1 => {
                let s = r.f32("uniform scale")?;
                out.push(field("Scale", PropType::Float, Value::Float(s)));
            }
            2 => out.push(self.table_field(r, "Scale3D", "Vector3f")?),
            _ => {}
        }
        Ok(Value::Struct(out))
    }

    /// One weighted parent of a multi-parent element.
    fn parent_constraint(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let v = self.s.version;
        let mut out = vec![self.key_field(r, "ParentKey")?];
        for name in ["InitialWeight", "Weight"] {
            let w = if v >= CR_MULTI_PARENT_CONSTRAINTS {
                let mut f = Vec::with_capacity(3);
                for c in ["Location", "Rotation", "Scale"] {
                    f.push(field(c, PropType::Float, Value::Float(r.f32(c)?)));
                }
                Value::Struct(f)
            } else {
                Value::Float(r.f32(name)?)
            };
            let ty = if v >= CR_MULTI_PARENT_CONSTRAINTS {
                PropType::Struct("RigElementWeight".into())
            } else {
                PropType::Float
            };
            out.push(field(name, ty, w));
        }
        if v >= CR_PARENT_LABEL {
            let label = self.name(r, "parent display label")?;
            out.push(field("DisplayLabel", PropType::Name, Value::Name(label)));
        }
        Ok(Value::Struct(out))
    }

    /// `FRigHierarchyKey`: an element key, a component key, both or none.
    fn hierarchy_key(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let mut out = Vec::new();
        if bool32(r, "hierarchy key element flag")? {
            out.push(self.key_field(r, "Element")?);
        }
        if bool32(r, "hierarchy key component flag")? {
            let name = self.name(r, "component name")?;
            let key = self.key_field(r, "ElementKey")?;
            out.push(field(
                "Component",
                PropType::Struct("RigComponentKey".into()),
                Value::Struct(vec![field("Name", PropType::Name, Value::Name(name)), key]),
            ));
        }
        Ok(Value::Struct(out))
    }

    /// A map of keys to keys (previous names or parents).
    fn key_map(&mut self, r: &mut Reader<'_>, name: &str, hkeys: bool) -> Result<Property> {
        let min = if hkeys { 16 } else { 2 * self.key_size() };
        let n = r.i32_count(name, min)?;
        let mut m = Vec::with_capacity(n);
        for _ in 0..n {
            let (k, v) = if hkeys {
                (self.hierarchy_key(r)?, self.hierarchy_key(r)?)
            } else {
                (self.key(r)?.1, self.key(r)?.1)
            };
            m.push((k, v));
        }
        let kt = if hkeys {
            PropType::Struct("RigHierarchyKey".into())
        } else {
            key_ty()
        };
        Ok(field(
            name,
            PropType::Map(Box::new(kt.clone()), Box::new(kt)),
            Value::Map(m),
        ))
    }

    /// The components: their struct names, then each one's struct index
    /// and the archive position after it (the component's data, written
    /// by its own struct, is kept as bytes).
    fn components(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let n = r.i32_count("components", 12)?;
        let mut out = vec![u32_field("NumComponents", n as u32)];
        if n == 0 {
            return Ok(out);
        }
        let m = r.i32_count("component struct names", 4)?;
        let mut names = Vec::with_capacity(m);
        for _ in 0..m {
            let s = pakrat_codec::fstring::read_fstring(r, "component struct name")?;
            names.push(Value::Str(s));
        }
        out.push(field(
            "ScriptStructNames",
            PropType::Array(Box::new(PropType::Str)),
            Value::Array(names),
        ));
        let mut comps = Vec::with_capacity(n);
        for _ in 0..n {
            let index = r.i32("component struct index")?;
            let at = r.offset();
            let end = r.i64("component end position")?;
            // The position is in the archive: the element archive's own
            // (from 0), or the package's (where the reader's offsets count).
            let here = if self.unique.is_some() {
                r.pos() as u64
            } else {
                r.offset()
            };
            let len = u64::try_from(end)
                .ok()
                .and_then(|e| e.checked_sub(here))
                .filter(|len| *len <= r.remaining() as u64)
                .ok_or_else(|| {
                    Error::invalid(
                        at,
                        format!(
                            "component ends at {end}, outside the data that follows (from {here} to {})",
                            here + r.remaining() as u64
                        ),
                    )
                })?;
            let data = super::nne::blob(r, len, "component data")?;
            comps.push(Value::Struct(vec![
                field(
                    "ScriptStructIndex",
                    PropType::Int,
                    Value::Int(i64::from(index)),
                ),
                field(
                    "Data",
                    PropType::Array(Box::new(PropType::Byte(None))),
                    data,
                ),
            ]));
        }
        out.push(field(
            "Components",
            PropType::Array(Box::new(PropType::Struct("RigComponent".into()))),
            Value::Array(comps),
        ));
        Ok(out)
    }
}

fn pose_ty() -> PropType {
    PropType::Struct("RigCurrentAndInitialTransform".into())
}

/// `FRigHierarchyElementsInfo`: element counts by type, then components.
fn elements_info(r: &mut Reader<'_>) -> Result<Property> {
    let mut out = Vec::with_capacity(8);
    for t in [
        "NumBones",
        "NumReferences",
        "NumSockets",
        "NumNulls",
        "NumControls",
        "NumCurves",
        "NumConnectors",
        "NumComponents",
    ] {
        out.push(u32_field(t, r.u32(t)?));
    }
    Ok(field(
        "ElementsInfo",
        PropType::Struct("RigHierarchyElementsInfo".into()),
        Value::Struct(out),
    ))
}
