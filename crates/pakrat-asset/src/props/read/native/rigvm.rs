//! `URigVM` (RigVM plugin): the class writes no property stream, only its
//! own data: hashes, external property paths, function names, the
//! bytecode (every instruction decoded by its opcode), parameters, the
//! memory storage structs (property bags) and the localized registry.
//! Layout and version gates (`FRigVMObjectVersion`, `FAnimObjectVersion`,
//! `FUE5MainStreamObjectVersion`, `FUE5ReleaseStreamObjectVersion`):
//! CUE4Parse `URigVM.cs`, `FRigVMByteCode.cs`, `FRigVMRegistry_NoLock.cs`
//! and their neighbours (read for facts), checked byte for byte on the UE
//! 5.8/6.0 fixture (whose bytecode is one `Exit`).
//!
//! A versionless package does not say which RigVM version wrote it, and
//! the releases differ (UE 6.0 adds a hash): the versions of the known
//! releases are tried, newest first, and the first that reads the whole
//! export is kept.

use super::bag::bool32;
use super::field;
use crate::props::read::values::FORTNITE_MAIN;
use crate::props::read::Ctx;
use crate::props::{PropType, Property, Value};
use pakrat_codec::fstring::read_fstring;
use pakrat_io::{Error, Guid, Reader, Result};

/// `FRigVMObjectVersion`.
const RIGVM: Guid = Guid {
    words: [0xDC49_959B, 0x53C0_4DE7, 0x9156_EA88, 0x5E7C_5D39],
};
/// `FAnimObjectVersion`.
const ANIM: Guid = Guid {
    words: [0xAF43_A65D, 0x7FD3_4947, 0x9873_3E8E, 0xD9C1_BB05],
};
/// `FUE5MainStreamObjectVersion`.
const UE5_MAIN: Guid = Guid {
    words: [0x697D_D581, 0xE64F_41AB, 0xAA4A_51EC, 0xBEB7_B628],
};
/// `FUE5ReleaseStreamObjectVersion`.
const UE5_RELEASE: Guid = Guid {
    words: [0xD89B_5E42, 0x24BD_4D46, 0x8412_ACA8, 0xDF64_1779],
};
/// `FAnimObjectVersion::StoreMarkerNamesOnSkeleton`: before it the VM
/// writes nothing.
const ANIM_VM_DATA: i32 = 2;
/// `FAnimObjectVersion::SerializeRigVMEntries`.
const ANIM_ENTRIES: i32 = 10;
/// `FUE5MainStreamObjectVersion::RigVMCopyOpStoreNumBytes`.
const MAIN_COPY_NUM_BYTES: i32 = 43;
/// `FUE5MainStreamObjectVersion::RigVMLazyEvaluation`.
const MAIN_LAZY_BRANCHES: i32 = 94;
/// `FFortniteMainBranchObjectVersion::RigVMByteCodeDeterminism`: before
/// it the bytecode is stored as its raw bytes.
const FORTNITE_BYTECODE_DETERMINISM: i32 = 36;
/// `RigVMSaveDebugMapInGraphFunctionData` (release and Fortnite streams).
const RELEASE_DEBUG_MAP: i32 = 44;
const FORTNITE_DEBUG_MAP: i32 = 113;

/// `FRigVMObjectVersion` gates.
const VM_HASH: i32 = 1;
const VM_PREDICATES: i32 = 2;
const VM_STRUCT_MAP: i32 = 3;
const VM_ENUM_MAP: i32 = 4;
const VM_HOST_USER_DATA: i32 = 5;
const VM_MEMORY_STORAGE: i32 = 6;
const VM_DEFAULT_MEMORY: i32 = 7;
const VM_CONTEXT_PATH: i32 = 8;
const VM_CONTEXT_TOP_LEVEL_PATH: i32 = 17;
const VM_BYTECODE_CLEANUP: i32 = 18;
const VM_LOCALIZED_REGISTRY: i32 = 19;
const VM_RELATIVE_REGISTRY_OFFSET: i32 = 20;
const VM_DEBUG_MAP_SIMPLIFIED: i32 = 23;
const VM_CALLABLES: i32 = 24;
const VM_CANONICAL_HASH: i32 = 26;
/// The newest `FRigVMObjectVersion` pakrat reads (`GuidForFunctions`).
const VM_LATEST: i32 = 27;
/// The RigVM versions of the engine releases (6.0, 5.8, 5.7, 5.6, 5.5,
/// 5.4, 5.3), tried newest first for a versionless package.
const RELEASE_VERSIONS: [i32; 7] = [27, 25, 19, 18, 15, 9, 2];

/// `ERigVMOpCode` after the 65 `Execute_N_Operands` codes.
const OPCODES: [&str; 40] = [
    "Zero",
    "BoolFalse",
    "BoolTrue",
    "Copy",
    "Increment",
    "Decrement",
    "Equals",
    "NotEquals",
    "JumpAbsolute",
    "JumpForward",
    "JumpBackward",
    "JumpAbsoluteIf",
    "JumpForwardIf",
    "JumpBackwardIf",
    "ChangeType",
    "Exit",
    "BeginBlock",
    "EndBlock",
    "ArrayReset",
    "ArrayGetNum",
    "ArraySetNum",
    "ArrayGetAtIndex",
    "ArraySetAtIndex",
    "ArrayAdd",
    "ArrayInsert",
    "ArrayRemove",
    "ArrayFind",
    "ArrayAppend",
    "ArrayClone",
    "ArrayIterator",
    "ArrayUnion",
    "ArrayDifference",
    "ArrayIntersection",
    "ArrayReverse",
    "InvokeEntry",
    "JumpToBranch",
    "Execute",
    "RunInstructions",
    "SetupTraits",
    "Invalid",
];
/// `ERigVMOpCode::Execute` (one code for any operand count).
const OP_EXECUTE: u8 = 101;
/// Bytes of a serialized `FRigVMOperand`.
const OPERAND_SIZE: usize = 5;
const MEMORY_TYPES: [&str; 5] = ["Work", "Literal", "External", "Debug", "Invalid"];

fn opcode_name(op: u8) -> Option<String> {
    match op {
        0..=64 => Some(format!("Execute_{op}_Operands")),
        _ => OPCODES.get(usize::from(op - 65)).map(|s| s.to_string()),
    }
}

fn enum_ty(name: &str) -> PropType {
    PropType::Enum {
        name: name.into(),
        underlying: None,
    }
}

fn named(e: &str, names: &[&str], v: u64) -> Value {
    match usize::try_from(v).ok().and_then(|i| names.get(i)) {
        Some(n) => Value::Enum(format!("{e}::{n}")),
        None => Value::Enum(format!("{e}::({v})")),
    }
}

fn intf(name: &str, v: i32) -> Property {
    field(name, PropType::Int, Value::Int(i64::from(v)))
}

fn strf(r: &mut Reader<'_>, name: &str) -> Result<Property> {
    Ok(field(
        name,
        PropType::Str,
        Value::Str(read_fstring(r, name)?),
    ))
}

fn arr(name: &str, inner: &str, items: Vec<Value>) -> Property {
    field(
        name,
        PropType::Array(Box::new(PropType::Struct(inner.into()))),
        Value::Array(items),
    )
}

/// `FRigVMOperand`: memory type, register index and offset.
fn operand(r: &mut Reader<'_>, name: &str) -> Result<Property> {
    let t = r.u8("operand memory type")?;
    let index = r.u16("operand register index")?;
    let offset = r.u16("operand register offset")?;
    Ok(field(
        name,
        PropType::Struct("RigVMOperand".into()),
        Value::Struct(vec![
            field(
                "MemoryType",
                enum_ty("ERigVMMemoryType"),
                named("ERigVMMemoryType", &MEMORY_TYPES, u64::from(t)),
            ),
            field(
                "RegisterIndex",
                PropType::UInt16,
                Value::UInt(u64::from(index)),
            ),
            field(
                "RegisterOffset",
                PropType::UInt16,
                Value::UInt(u64::from(offset)),
            ),
        ]),
    ))
}

/// Operands in the order they are stored.
fn operands(r: &mut Reader<'_>, names: &[&str], out: &mut Vec<Property>) -> Result<()> {
    for n in names {
        out.push(operand(r, n)?);
    }
    Ok(())
}

/// An op's own copy of its opcode, which must match the one before it
/// (any execute code after an execute code).
fn repeated_opcode(r: &mut Reader<'_>, op: u8) -> Result<u8> {
    let at = r.offset();
    let rep = r.u8("opcode")?;
    let execute = |o: u8| o <= 64 || o == OP_EXECUTE;
    if rep == op || (execute(op) && execute(rep)) {
        return Ok(rep);
    }
    Err(Error::invalid(
        at,
        format!("instruction repeats opcode {rep}, expected {op}"),
    ))
}

impl Ctx<'_, '_> {
    /// The VM: the whole export.
    pub(super) fn rig_vm(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        if !self.custom_at_least(ANIM, ANIM_VM_DATA) {
            return Ok(Vec::new());
        }
        if let Some(v) = self.asset.versions.custom(RIGVM) {
            if !(0..=VM_LATEST).contains(&v) {
                return Err(
                    r.unsupported(format!("RigVM version {v} (pakrat reads 0..={VM_LATEST})"))
                );
            }
            let out = self.rig_vm_as(r, v)?;
            return vm_done(r, v).map(|()| out);
        }
        if self.asset.versions.custom_from_package {
            return Err(r.unsupported(
                "a RigVM from before FRigVMObjectVersion (UE 5.0-5.2 memory containers)",
            ));
        }
        let start = r.clone();
        let mut first = None;
        for v in RELEASE_VERSIONS {
            let mut attempt = start.clone();
            let res = self
                .rig_vm_as(&mut attempt, v)
                .and_then(|out| vm_done(&attempt, v).map(|()| out));
            match res {
                Ok(out) => {
                    *r = attempt;
                    return Ok(out);
                }
                Err(e) => {
                    first.get_or_insert(e);
                }
            }
        }
        let e = first.unwrap_or_else(|| start.invalid("no RigVM version to try"));
        Err(Error::Other(format!(
            "{e} (a versionless RigVM: versions {RELEASE_VERSIONS:?} were tried, none reads the whole export)"
        )))
    }

    /// The VM as written with RigVM version `v`.
    fn rig_vm_as(&mut self, r: &mut Reader<'_>, v: i32) -> Result<Vec<Property>> {
        let mut out = Vec::new();
        if v >= VM_HASH {
            let h = r.u32("VM hash")?;
            out.push(field(
                "CachedVMHash",
                PropType::UInt32,
                Value::UInt(h.into()),
            ));
        }
        if v >= VM_CANONICAL_HASH {
            let h = r.u32("canonical VM hash")?;
            out.push(field(
                "CachedCanonicalVMHash",
                PropType::UInt32,
                Value::UInt(h.into()),
            ));
        }
        out.push(property_paths(r, "ExternalPropertyPathDescriptions")?);
        let n = r.i32_count("function names", 8)?;
        let mut names = Vec::with_capacity(n);
        for _ in 0..n {
            names.push(Value::Name(self.fname(r, "function name")?));
        }
        out.push(field(
            "FunctionNamesStorage",
            PropType::Array(Box::new(PropType::Name)),
            Value::Array(names),
        ));
        let bytecode = self.bytecode(r, v)?;
        out.push(field(
            "ByteCodeStorage",
            PropType::Struct("RigVMByteCode".into()),
            Value::Struct(bytecode),
        ));
        out.push(self.parameters(r)?);
        let debug_map = self.custom_at_least(UE5_RELEASE, RELEASE_DEBUG_MAP)
            || self.custom_at_least(FORTNITE_MAIN, FORTNITE_DEBUG_MAP);
        if debug_map && v < VM_DEBUG_MAP_SIMPLIFIED {
            out.push(debug_registers(r)?);
        }
        if (VM_STRUCT_MAP..VM_HOST_USER_DATA).contains(&v) {
            out.push(self.path_map(r, "UserDefinedStructGuidToPathName")?);
        }
        if (VM_ENUM_MAP..VM_HOST_USER_DATA).contains(&v) {
            out.push(self.path_map(r, "UserDefinedEnumToPathName")?);
        }
        if v >= VM_MEMORY_STORAGE {
            out.push(self.memory_storage(r, "LiteralMemoryStorage")?);
        }
        if v >= VM_DEFAULT_MEMORY {
            out.push(self.memory_storage(r, "DefaultWorkMemoryStorage")?);
            out.push(self.memory_storage(r, "DefaultDebugMemoryStorage")?);
        }
        if v >= VM_LOCALIZED_REGISTRY {
            let stored = bool32(r, "stored localized registry flag")?;
            out.push(field(
                "bStoredLocalizedRegistry",
                PropType::Bool,
                Value::Bool(stored),
            ));
            if stored {
                out.extend(self.localized_registry(r, v)?);
            }
        }
        Ok(out)
    }

    /// `FRigVMByteCode`: instructions, entries, branches, callables and
    /// the public context path.
    fn bytecode(&mut self, r: &mut Reader<'_>, v: i32) -> Result<Vec<Property>> {
        if !self.custom_at_least(FORTNITE_MAIN, FORTNITE_BYTECODE_DETERMINISM) {
            // The VM's own in-memory bytecode, kept as bytes.
            let n = r.i32_count("bytecode bytes", 1)?;
            let bytes = super::nne::blob(r, n as u64, "bytecode")?;
            return Ok(vec![field(
                "ByteCode",
                PropType::Array(Box::new(PropType::Byte(None))),
                bytes,
            )]);
        }
        let n = r.i32_count("instructions", 1)?;
        let mut ins = Vec::with_capacity(n);
        for _ in 0..n {
            ins.push(Value::Struct(self.instruction(r, v)?));
        }
        let mut out = vec![arr("Instructions", "RigVMInstruction", ins)];
        if self.custom_at_least(ANIM, ANIM_ENTRIES) {
            let n = r.i32_count("entries", 4)?;
            let mut e = Vec::with_capacity(n);
            for _ in 0..n {
                e.push(Value::Str(read_fstring(r, "entry")?));
            }
            out.push(field(
                "Entries",
                PropType::Array(Box::new(PropType::Str)),
                Value::Array(e),
            ));
        }
        if self.custom_at_least(UE5_MAIN, MAIN_LAZY_BRANCHES) {
            let n = r.i32_count("branch infos", 20)?;
            let mut b = Vec::with_capacity(n);
            for _ in 0..n {
                b.push(branch_info(r, v)?);
            }
            out.push(arr("BranchInfos", "RigVMBranchInfo", b));
        }
        if v >= VM_CALLABLES {
            let n = r.i32_count("callable infos", 24)?;
            let mut c = Vec::with_capacity(n);
            for _ in 0..n {
                c.push(self.callable_info(r)?);
            }
            out.push(arr("CallableInfos", "RigVMCallableInfo", c));
        }
        if v >= VM_CONTEXT_TOP_LEVEL_PATH {
            let package = self.fname(r, "context package name")?;
            let asset = self.fname(r, "context asset name")?;
            out.push(field(
                "PublicContextAssetPath",
                PropType::Struct("TopLevelAssetPath".into()),
                Value::Struct(vec![
                    field("PackageName", PropType::Name, Value::Name(package)),
                    field("AssetName", PropType::Name, Value::Name(asset)),
                ]),
            ));
        } else if v >= VM_CONTEXT_PATH {
            out.push(strf(r, "PublicContextPathName")?);
        }
        Ok(out)
    }

    /// One instruction: its opcode, then the op (which, but for
    /// `InvokeEntry`, starts with the opcode again).
    fn instruction(&mut self, r: &mut Reader<'_>, v: i32) -> Result<Vec<Property>> {
        let at = r.offset();
        let op = r.u8("opcode")?;
        let Some(name) = opcode_name(op).filter(|n| n != "Invalid") else {
            return Err(Error::invalid(
                at,
                format!("opcode {op} is not an ERigVMOpCode (0..=103)"),
            ));
        };
        let mut out = vec![field(
            "OpCode",
            enum_ty("ERigVMOpCode"),
            Value::Enum(format!("ERigVMOpCode::{name}")),
        )];
        match op {
            0..=64 | OP_EXECUTE => self.execute_op(r, op, v, &mut out)?,
            68 => {
                repeated_opcode(r, op)?;
                operands(r, &["Source", "Target"], &mut out)?;
                if self.custom_at_least(UE5_MAIN, MAIN_COPY_NUM_BYTES) {
                    if v < VM_BYTECODE_CLEANUP {
                        let n = r.u16("copy byte count")?;
                        out.push(field("NumBytes", PropType::UInt16, Value::UInt(n.into())));
                    }
                    let t = r.u8("copy register type")?;
                    out.push(field(
                        "RegisterType",
                        enum_ty("ERigVMRegisterType"),
                        named(
                            "ERigVMRegisterType",
                            &["Plain", "String", "Name", "Struct", "Invalid"],
                            t.into(),
                        ),
                    ));
                }
            }
            79 | 80 | 82 => {}
            99 => out.push(strf(r, "EntryName")?),
            _ => {
                repeated_opcode(r, op)?;
                simple_op(r, op, &mut out)?;
            }
        }
        Ok(out)
    }

    /// `FRigVMExecuteOp`: function index, operand count (in the opcode
    /// for the old per-count codes), predicates, operands.
    fn execute_op(
        &mut self,
        r: &mut Reader<'_>,
        op: u8,
        v: i32,
        out: &mut Vec<Property>,
    ) -> Result<()> {
        let inner = repeated_opcode(r, op)?;
        let f = r.u16("function index")?;
        out.push(field(
            "FunctionIndex",
            PropType::UInt16,
            Value::UInt(f.into()),
        ));
        let count = if inner <= 64 {
            u16::from(inner)
        } else {
            r.u16("operand count")?
        };
        out.push(field(
            "ArgumentCount",
            PropType::UInt16,
            Value::UInt(count.into()),
        ));
        if v >= VM_PREDICATES {
            let first = r.u16("first predicate index")?;
            let n = r.u16("predicate count")?;
            out.push(field(
                "FirstPredicateIndex",
                PropType::UInt16,
                Value::UInt(first.into()),
            ));
            out.push(field(
                "PredicateCount",
                PropType::UInt16,
                Value::UInt(n.into()),
            ));
        }
        let count = r.check_count(i64::from(count), OPERAND_SIZE, "operands")?;
        let mut args = Vec::with_capacity(count);
        for _ in 0..count {
            args.push(operand(r, "Argument")?.value);
        }
        out.push(arr("Arguments", "RigVMOperand", args));
        Ok(())
    }

    /// `FRigVMParameter` list.
    fn parameters(&mut self, r: &mut Reader<'_>) -> Result<Property> {
        let n = r.i32_count("parameters", 25)?;
        let mut ps = Vec::with_capacity(n);
        for _ in 0..n {
            let t = r.u8("parameter type")?;
            let name = self.fname(r, "parameter name")?;
            let reg = r.i32("parameter register index")?;
            let cpp = read_fstring(r, "parameter C++ type")?;
            let path = self.fname(r, "parameter struct path")?;
            ps.push(Value::Struct(vec![
                field(
                    "Type",
                    enum_ty("ERigVMParameterType"),
                    named(
                        "ERigVMParameterType",
                        &["Input", "Output", "Invalid"],
                        t.into(),
                    ),
                ),
                field("Name", PropType::Name, Value::Name(name)),
                intf("RegisterIndex", reg),
                field("CPPType", PropType::Str, Value::Str(cpp)),
                field("ScriptStructPath", PropType::Name, Value::Name(path)),
            ]));
        }
        Ok(arr("Parameters", "RigVMParameter", ps))
    }

    /// `TMap<FString, FSoftObjectPath>` (user-defined types by name).
    fn path_map(&mut self, r: &mut Reader<'_>, name: &str) -> Result<Property> {
        let n = r.i32_count(name, 8)?;
        let mut m = Vec::with_capacity(n);
        for _ in 0..n {
            let k = read_fstring(r, "user-defined type key")?;
            let p = self.value(r, &PropType::SoftObject)?;
            m.push((Value::Str(k), p));
        }
        Ok(field(
            name,
            PropType::Map(Box::new(PropType::Str), Box::new(PropType::SoftObject)),
            Value::Map(m),
        ))
    }

    /// `FRigVMMemoryStorageStruct`: a property bag, the memory type and
    /// the property paths.
    fn memory_storage(&mut self, r: &mut Reader<'_>, name: &str) -> Result<Property> {
        let bag = self.property_bag(r)?;
        let t = r.u8("memory type")?;
        let paths = property_paths(r, "PropertyPathDescriptions")?;
        Ok(field(
            name,
            PropType::Struct("RigVMMemoryStorageStruct".into()),
            Value::Struct(vec![
                field(
                    "PropertyBag",
                    PropType::Struct("InstancedPropertyBag".into()),
                    bag,
                ),
                field(
                    "MemoryType",
                    enum_ty("ERigVMMemoryType"),
                    named("ERigVMMemoryType", &MEMORY_TYPES, t.into()),
                ),
                paths,
            ]),
        ))
    }

    /// `FRigVMCallableInfo`.
    fn callable_info(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let index = r.i32("callable index")?;
        let mut out = vec![intf("Index", index), strf(r, "Name")?];
        let hash = r.u32("callable function hash")?;
        out.push(field(
            "FunctionHash",
            PropType::UInt32,
            Value::UInt(hash.into()),
        ));
        let n = r.i32_count("callable arguments", 23)?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.fname(r, "callable argument name")?;
            let mut a = vec![field("Name", PropType::Name, Value::Name(name))];
            a.push(strf(r, "TypeString")?);
            a.push(operand(r, "InterfaceOperand")?);
            a.push(operand(r, "ForwardedOperand")?);
            let d = r.u8("callable argument direction")?;
            a.push(field(
                "Direction",
                enum_ty("ERigVMPinDirection"),
                named(
                    "ERigVMPinDirection",
                    &["Input", "Output", "IO", "Visible", "Hidden", "Invalid"],
                    d.into(),
                ),
            ));
            args.push(Value::Struct(a));
        }
        out.push(arr("Arguments", "RigVMCallableArgument", args));
        out.push(intf("FirstInstruction", r.i32("first instruction")?));
        out.push(intf("LastInstruction", r.i32("last instruction")?));
        Ok(Value::Struct(out))
    }

    /// The localized registry, after the offset of its end (relative to
    /// the offset's own position from `LocalizedRegistryWithRelativeSeekOffset`),
    /// which must be where the registry ends.
    fn localized_registry(&mut self, r: &mut Reader<'_>, v: i32) -> Result<Vec<Property>> {
        let at = r.offset();
        let from = r.pos() as i64;
        let end = r.i64("registry end offset")?;
        let registry = self.registry(r)?;
        if v >= VM_RELATIVE_REGISTRY_OFFSET && from.checked_add(end) != Some(r.pos() as i64) {
            return Err(Error::invalid(
                at,
                format!(
                    "the registry's end offset says {end} bytes from here, but it takes {}",
                    r.pos() as i64 - from
                ),
            ));
        }
        Ok(vec![
            field(
                "ArchivePosAfterSerializedRegistry",
                PropType::Int64,
                Value::Int(end),
            ),
            field(
                "LocalizedRegistry",
                PropType::Struct("RigVMRegistry_NoLock".into()),
                Value::Struct(registry),
            ),
        ])
    }

    /// `FRigVMRegistry_NoLock`: allowed classes, types, dispatch
    /// factories, functions.
    fn registry(&mut self, r: &mut Reader<'_>) -> Result<Vec<Property>> {
        let n = r.i32_count("allowed classes", 4)?;
        let mut classes = Vec::with_capacity(n);
        for _ in 0..n {
            classes.push(Value::Object(self.object(r, "allowed class")?));
        }
        let n = r.i32_count("registry types", 12)?;
        let mut types = Vec::with_capacity(n);
        for _ in 0..n {
            types.push(self.type_index(r)?);
        }
        let n = r.i32_count("dispatch factories", 8)?;
        let mut factories = Vec::with_capacity(n);
        for _ in 0..n {
            let k = Value::Object(self.object(r, "factory struct")?);
            factories.push((k, self.dispatch_factory(r)?));
        }
        let n = r.i32_count("registry functions", 16)?;
        let mut functions = Vec::with_capacity(n);
        for _ in 0..n {
            functions.push(self.registry_function(r)?);
        }
        Ok(vec![
            field(
                "AllowedClasses",
                PropType::Array(Box::new(PropType::Object)),
                Value::Array(classes),
            ),
            arr("Types", "RigVMTemplateArgumentType", types),
            field(
                "FactoryStructToFactory",
                PropType::Map(
                    Box::new(PropType::Object),
                    Box::new(PropType::Struct("RigVMDispatchFactory".into())),
                ),
                Value::Map(factories),
            ),
            arr("Functions", "RigVMFunction", functions),
        ])
    }

    /// A registry type: C++ type name and type object.
    fn type_index(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let cpp = self.fname(r, "C++ type")?;
        let obj = self.object(r, "C++ type object")?;
        Ok(Value::Struct(vec![
            field("CPPType", PropType::Name, Value::Name(cpp)),
            field("CPPTypeObject", PropType::Object, Value::Object(obj)),
        ]))
    }

    /// A dispatch factory's flattened template arguments.
    fn dispatch_factory(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let n = r.i32_count("factory arguments", 16)?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            let name = self.fname(r, "argument name")?;
            let d = direction(r)?;
            let m = r.i32_count("argument types", 12)?;
            let mut types = Vec::with_capacity(m);
            for _ in 0..m {
                types.push(self.type_index(r)?);
            }
            args.push(Value::Struct(vec![
                field("ArgumentName", PropType::Name, Value::Name(name)),
                d,
                arr("TypeIndices", "RigVMTemplateArgumentType", types),
            ]));
        }
        Ok(Value::Struct(vec![arr(
            "FlattenedArguments",
            "RigVMTemplateArgumentInfo",
            args,
        )]))
    }

    /// `FRigVMFunction`: name, struct, factory struct, arguments.
    fn registry_function(&mut self, r: &mut Reader<'_>) -> Result<Value> {
        let mut out = vec![strf(r, "Name")?];
        let s = self.object(r, "function struct")?;
        let f = self.object(r, "function factory struct")?;
        out.push(field("Struct", PropType::Object, Value::Object(s)));
        out.push(field("FactoryStruct", PropType::Object, Value::Object(f)));
        let n = r.i32_count("function arguments", 12)?;
        let mut args = Vec::with_capacity(n);
        for _ in 0..n {
            args.push(Value::Struct(vec![
                strf(r, "LocalNameString")?,
                strf(r, "LocalTypeString")?,
                direction(r)?,
            ]));
        }
        out.push(arr("Arguments", "RigVMFunctionArgument", args));
        Ok(Value::Struct(out))
    }
}

/// The VM must end where the export ends.
fn vm_done(r: &Reader<'_>, v: i32) -> Result<()> {
    if r.remaining() != 0 {
        return Err(r.invalid(format!(
            "{} bytes left after the RigVM data (read as RigVM version {v})",
            r.remaining()
        )));
    }
    Ok(())
}

/// `ERigVMFunctionArgumentDirection`, stored as an `i32`.
fn direction(r: &mut Reader<'_>) -> Result<Property> {
    let d = r.i32("argument direction")?;
    Ok(field(
        "Direction",
        PropType::Enum {
            name: "ERigVMFunctionArgumentDirection".into(),
            underlying: Some(Box::new(PropType::Int)),
        },
        named(
            "ERigVMFunctionArgumentDirection",
            &["Input", "Output", "Invalid"],
            u64::try_from(d).unwrap_or(u64::MAX),
        ),
    ))
}

/// The ops made of operands and instruction indices, after the repeated
/// opcode.
fn simple_op(r: &mut Reader<'_>, op: u8, out: &mut Vec<Property>) -> Result<()> {
    match op {
        // Zero, BoolFalse, BoolTrue, Increment, Decrement, ArrayReset,
        // ArrayReverse, SetupTraits.
        65 | 66 | 67 | 69 | 70 | 83 | 98 | 103 => operands(r, &["Arg"], out),
        71 | 72 => operands(r, &["A", "B", "Result"], out),
        73..=75 => {
            out.push(intf("InstructionIndex", r.i32("instruction index")?));
            Ok(())
        }
        76..=78 => {
            operands(r, &["Arg"], out)?;
            out.push(intf("InstructionIndex", r.i32("instruction index")?));
            let c = bool32(r, "jump condition")?;
            out.push(field("Condition", PropType::Bool, Value::Bool(c)));
            Ok(())
        }
        81 | 84 | 85 | 90 | 92 | 93 | 95 => operands(r, &["ArgA", "ArgB"], out),
        86 | 87 | 88 | 89 | 96 | 97 => operands(r, &["ArgA", "ArgB", "ArgC"], out),
        91 => operands(r, &["ArgA", "ArgB", "ArgC", "ArgD"], out),
        94 => operands(r, &["ArgA", "ArgB", "ArgC", "ArgD", "ArgE", "ArgF"], out),
        100 => {
            operands(r, &["Arg"], out)?;
            out.push(intf("FirstBranchInfoIndex", r.i32("first branch info")?));
            Ok(())
        }
        102 => {
            operands(r, &["Arg"], out)?;
            out.push(intf("StartInstruction", r.i32("start instruction")?));
            out.push(intf("EndInstruction", r.i32("end instruction")?));
            Ok(())
        }
        _ => Err(r.invalid(format!("opcode {op}: no layout known"))),
    }
}

/// `FRigVMBranchInfo`: index, label, instruction and argument indices,
/// first and last instruction (`u16` before the bytecode cleanup).
fn branch_info(r: &mut Reader<'_>, v: i32) -> Result<Value> {
    let mut out = vec![intf("Index", r.i32("branch index")?), strf(r, "Label")?];
    out.push(intf("InstructionIndex", r.i32("branch instruction")?));
    out.push(intf("ArgumentIndex", r.i32("branch argument")?));
    for name in ["FirstInstruction", "LastInstruction"] {
        let x = if v < VM_BYTECODE_CLEANUP {
            i32::from(r.u16(name)?)
        } else {
            r.i32(name)?
        };
        out.push(intf(name, x));
    }
    Ok(Value::Struct(out))
}

/// `FRigVMPropertyPathDescription` list: property index, head C++ type,
/// segment path.
fn property_paths(r: &mut Reader<'_>, name: &str) -> Result<Property> {
    let n = r.i32_count(name, 12)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let index = r.i32("property index")?;
        out.push(Value::Struct(vec![
            intf("PropertyIndex", index),
            strf(r, "HeadCPPType")?,
            strf(r, "SegmentPath")?,
        ]));
    }
    Ok(arr(name, "RigVMPropertyPathDescription", out))
}

/// `OperandToDebugRegisters`: operand → operands.
fn debug_registers(r: &mut Reader<'_>) -> Result<Property> {
    let n = r.i32_count("debug registers", OPERAND_SIZE + 4)?;
    let mut m = Vec::with_capacity(n);
    for _ in 0..n {
        let k = operand(r, "Key")?.value;
        let c = r.i32_count("debug operands", OPERAND_SIZE)?;
        let mut v = Vec::with_capacity(c);
        for _ in 0..c {
            v.push(operand(r, "Operand")?.value);
        }
        m.push((k, Value::Array(v)));
    }
    let op = || PropType::Struct("RigVMOperand".into());
    Ok(field(
        "OperandToDebugRegisters",
        PropType::Map(Box::new(op()), Box::new(PropType::Array(Box::new(op())))),
        Value::Map(m),
    ))
}
