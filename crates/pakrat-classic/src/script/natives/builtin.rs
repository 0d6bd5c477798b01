//! Built-in tables of packages a decompiled package uses but that are
//! often not at hand, read from the games' public UnrealScript sources:
//!
//! - native tables: the natives of UT2004's `XInterface`, Deus Ex's
//!   `Extension`, `DeusEx` and its additions to `Engine` and `Core`, as
//!   facts (index, name, kind, flags, parameters);
//! - type tables (`types`): for the classes of UT2004's `XInterface`,
//!   `GUI2K4`, `UnrealGame`, `Onslaught`, `XWeapons`, `XPickups`,
//!   `XEffects`, `IpDrv`, `UWeb`, `xWebAdmin`, `XAdmin`, UT's (UE1)
//!   `UnrealShare`, `UnrealI`, `UTMenu`, `UBrowser`, `IpServer`,
//!   `UTServerAdmin`, `UWeb` and Deus Ex's `DeusEx` and `Extension` that the corpus's
//!   packages name (and the classes above them), each class's super, its
//!   properties (with the enum of a byte that has one), its functions
//!   (flags, `coerce` and enum parameters, enum return) and the package's
//!   enums: what a super call's class, an enum value's name and a `within`
//!   class's `Outer.` need.
//!
//! Each table is a tab-separated file beside this one whose header names
//! the game, the package and the source.
//!
//! A table is only a fallback: [`NativeTable`](super::NativeTable) uses it
//! for a native index, or a class (with its properties and functions), that
//! no package given defines, when the package decompiled has the table's
//! generation and it or a package given beside references the table's
//! package (and the table's game, see [`Builtin::markers`]).

use std::collections::HashMap;
use std::sync::OnceLock;

use super::{NativeInfo, OpKind, FUNC_FINAL, FUNC_OPERATOR, FUNC_PRE_OPERATOR, FUNC_STATIC};

/// One built-in table.
#[derive(Debug)]
pub struct Builtin {
    /// The game, for messages (`Deus Ex`).
    pub game: &'static str,
    /// The package whose natives (or types) the table gives (`Extension`).
    pub package: &'static str,
    /// Whether the table gives the package's types (classes, properties,
    /// functions, enums) rather than its natives.
    pub types: bool,
    /// The table is used only when one of these packages is referenced
    /// (`Engine` is referenced by every UE1 package: Deus Ex's additions
    /// to it apply only beside a Deus Ex package).
    pub markers: &'static [&'static str],
    /// Whether a package of this version and licensee is of the game.
    pub generation: fn(u16, u16) -> bool,
    /// The table's text.
    text: &'static str,
    /// Its rows, parsed on first use.
    parsed: OnceLock<Parsed>,
}

/// UT2004: v128, licensee 29 (every UT2004 package of the corpus).
fn ut2004(version: u16, licensee: u16) -> bool {
    version == 128 && licensee == 29
}

/// Unreal Tournament (UE1): v68 (432) and v69 (436 to 469), licensee 0
/// (Deus Ex, v68 too, references none of these tables' packages).
fn ut99(version: u16, licensee: u16) -> bool {
    (68..=69).contains(&version) && licensee == 0
}

/// Deus Ex: v68 (licensee 0, or a mod's own; the corpus's Deus Ex packages
/// are v68 with licensee 0 or 32).
fn deus_ex(version: u16, _licensee: u16) -> bool {
    version == 68
}

/// The Deus Ex packages whose reference marks a package as Deus Ex's.
const DEUS_EX: &[&str] = &["Extension", "DeusEx"];

/// How many built-in tables there are.
const TABLES: usize = 32;
// One bit each in `NativeTable`'s record of the tables used.
const _: () = assert!(TABLES <= 64);

/// Every built-in table.
pub static BUILTINS: [Builtin; TABLES] = [
    Builtin {
        game: "Unreal Tournament 2004",
        types: false,
        package: "XInterface",
        markers: &["XInterface"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-XInterface.tsv"),
    },
    Builtin {
        game: "Deus Ex",
        types: false,
        package: "Extension",
        markers: &["Extension"],
        generation: deus_ex,
        parsed: OnceLock::new(),
        text: include_str!("deusex-Extension.tsv"),
    },
    Builtin {
        game: "Deus Ex",
        types: false,
        package: "DeusEx",
        markers: &["DeusEx"],
        generation: deus_ex,
        parsed: OnceLock::new(),
        text: include_str!("deusex-DeusEx.tsv"),
    },
    Builtin {
        game: "Deus Ex",
        types: false,
        package: "Engine",
        markers: DEUS_EX,
        generation: deus_ex,
        parsed: OnceLock::new(),
        text: include_str!("deusex-Engine.tsv"),
    },
    Builtin {
        game: "Deus Ex",
        types: false,
        package: "Core",
        markers: DEUS_EX,
        generation: deus_ex,
        parsed: OnceLock::new(),
        text: include_str!("deusex-Core.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "XInterface",
        markers: &["XInterface"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-XInterface-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "GUI2K4",
        markers: &["GUI2K4"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-GUI2K4-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "UnrealGame",
        markers: &["UnrealGame"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-UnrealGame-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "Onslaught",
        markers: &["Onslaught"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-Onslaught-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "XWeapons",
        markers: &["XWeapons"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-XWeapons-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "XPickups",
        markers: &["XPickups"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-XPickups-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "XEffects",
        markers: &["XEffects"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-XEffects-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "IpDrv",
        markers: &["IpDrv"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-IpDrv-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "UWeb",
        markers: &["UWeb"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-UWeb-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "xWebAdmin",
        markers: &["xWebAdmin"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-xWebAdmin-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "XAdmin",
        markers: &["XAdmin"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-XAdmin-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "SkaarjPack",
        markers: &["SkaarjPack"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-SkaarjPack-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "Gameplay",
        markers: &["Gameplay"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-Gameplay-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "UT2k4Assault",
        markers: &["UT2k4Assault"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-UT2k4Assault-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "UTClassic",
        markers: &["UTClassic"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-UTClassic-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "BonusPack",
        markers: &["BonusPack"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-BonusPack-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "OnslaughtFull",
        markers: &["OnslaughtFull"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-OnslaughtFull-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament 2004",
        types: true,
        package: "xVoting",
        markers: &["xVoting"],
        generation: ut2004,
        parsed: OnceLock::new(),
        text: include_str!("ut2004-xVoting-types.tsv"),
    },
    Builtin {
        game: "Deus Ex",
        types: true,
        package: "DeusEx",
        markers: &["DeusEx"],
        generation: deus_ex,
        parsed: OnceLock::new(),
        text: include_str!("deusex-DeusEx-types.tsv"),
    },
    Builtin {
        game: "Deus Ex",
        types: true,
        package: "Extension",
        markers: &["Extension"],
        generation: deus_ex,
        parsed: OnceLock::new(),
        text: include_str!("deusex-Extension-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "UnrealShare",
        markers: &["UnrealShare"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-UnrealShare-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "UnrealI",
        markers: &["UnrealI"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-UnrealI-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "UTMenu",
        markers: &["UTMenu"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-UTMenu-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "UBrowser",
        markers: &["UBrowser"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-UBrowser-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "IpServer",
        markers: &["IpServer"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-IpServer-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "UTServerAdmin",
        markers: &["UTServerAdmin"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-UTServerAdmin-types.tsv"),
    },
    Builtin {
        game: "Unreal Tournament",
        types: true,
        package: "UWeb",
        markers: &["UWeb"],
        generation: ut99,
        parsed: OnceLock::new(),
        text: include_str!("ut99-UWeb-types.tsv"),
    },
];

/// A table's rows.
#[derive(Debug, Default)]
pub struct Parsed {
    /// Native index → its function.
    pub by_index: HashMap<u16, NativeInfo>,
    /// (class, function) lower-case → its info.
    pub by_path: HashMap<(String, String), NativeInfo>,
    /// Enum name lower-case → its values.
    pub enums: HashMap<String, Vec<String>>,
    /// Class lower-case → its super class lower-case (type tables).
    pub supers: HashMap<String, String>,
    /// Class lower-case → its name as the table writes it (type tables).
    pub class_names: HashMap<String, String>,
    /// (class or struct, property) lower-case → the property's enum, when
    /// it is a byte with one (type tables: every property of a class, and
    /// the members of its structs that have an enum).
    pub props: HashMap<(String, String), Option<String>>,
    /// Function name lower-case → its info when every function of that
    /// name in the table takes the same parameters, else `None`.
    pub names: HashMap<String, Option<NativeInfo>>,
    /// The rows that did not parse (line number, why).
    pub errors: Vec<(usize, String)>,
}

impl Builtin {
    /// The table's rows (parsed once).
    pub fn parsed(&self) -> &Parsed {
        self.parsed.get_or_init(|| parse(self.text))
    }
}

/// Parse a table's text (see the header of any table for its columns).
pub fn parse(text: &str) -> Parsed {
    let mut out = Parsed::default();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim_end_matches('\r');
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let cols: Vec<&str> = line.split('\t').collect();
        match cols.as_slice() {
            ["enum", name, values] => {
                let v = values.split(',').map(str::to_string).collect();
                out.enums.insert(name.to_lowercase(), v);
            }
            ["enum", ..] => out.errors.push((n + 1, "an enum row has 3 columns".into())),
            ["class", class, sup] => {
                let sup = (*sup != "-").then(|| sup.to_lowercase());
                if out.supers.contains_key(&class.to_lowercase()) {
                    out.errors.push((n + 1, "a class given twice".into()));
                }
                // `-`: no super (Object); the type tables hold none.
                if let Some(sup) = sup {
                    out.supers.insert(class.to_lowercase(), sup);
                }
                out.class_names
                    .insert(class.to_lowercase(), (*class).to_string());
            }
            ["class", ..] => out.errors.push((n + 1, "a class row has 3 columns".into())),
            ["var", owner, name, en] => {
                let en = (*en != "-").then(|| en.to_string());
                let key = (owner.to_lowercase(), name.to_lowercase());
                out.props.insert(key, en);
            }
            ["var", ..] => out.errors.push((n + 1, "a var row has 4 columns".into())),
            _ => match row(&cols) {
                Ok((class, info)) => {
                    let key = (class.to_lowercase(), info.friendly.to_lowercase());
                    match out.names.get_mut(&key.1) {
                        None => {
                            out.names.insert(key.1.clone(), Some(info.clone()));
                        }
                        Some(slot) => {
                            if slot.as_ref().is_some_and(|s| !super::same_params(s, &info)) {
                                *slot = None;
                            }
                        }
                    }
                    out.by_path.insert(key, info.clone());
                    // A function that is not native (index `-`) is known
                    // by its class only.
                    if info.native != 0 && out.by_index.insert(info.native, info).is_some() {
                        out.errors
                            .push((n + 1, "a native index given twice".into()));
                    }
                }
                Err(e) => out.errors.push((n + 1, e)),
            },
        }
    }
    out
}

/// One native's row: its class and info.
fn row<'a>(cols: &[&'a str]) -> Result<(&'a str, NativeInfo), String> {
    let [index, class, name, kind, flags, params, ret] = cols else {
        return Err(format!("{} columns, expected 7", cols.len()));
    };
    // `-`: a function that is not native (type tables).
    let native: u16 = match *index {
        "-" => 0,
        i => match i.parse() {
            Ok(0) | Err(_) => return Err(format!("index {index:?} is not a number above 0")),
            Ok(v) => v,
        },
    };
    if name.is_empty() || class.is_empty() {
        return Err("an index, a class and a name are needed".into());
    }
    let mut f = 0u32;
    for flag in flags.split(',').filter(|x| *x != "-") {
        f |= match flag {
            "final" => FUNC_FINAL,
            "static" => FUNC_STATIC,
            _ => return Err(format!("unknown flag {flag:?}")),
        };
    }
    let (mut coerce, mut enums) = (Vec::new(), Vec::new());
    for p in params.split(',').filter(|x| *x != ".") {
        coerce.push(p == "c");
        enums.push((p != "c" && p != "-" && !p.is_empty()).then(|| p.to_string()));
    }
    let kind = match *kind {
        "call" => OpKind::Call,
        "pre" => OpKind::Pre,
        "post" => OpKind::Post,
        k => {
            let prec = k
                .strip_prefix("binary(")
                .and_then(|k| k.strip_suffix(')'))
                .and_then(|p| p.parse().ok())
                .ok_or_else(|| format!("unknown kind {k:?}"))?;
            OpKind::Binary(prec)
        }
    };
    match kind {
        OpKind::Call => {}
        OpKind::Pre => f |= FUNC_OPERATOR | FUNC_PRE_OPERATOR,
        OpKind::Post | OpKind::Binary(_) => f |= FUNC_OPERATOR,
    }
    let want = match kind {
        OpKind::Call => coerce.len(),
        OpKind::Pre | OpKind::Post => 1,
        OpKind::Binary(_) => 2,
    };
    if coerce.len() != want {
        return Err(format!("{} parameters for a {kind:?}", coerce.len()));
    }
    let info = NativeInfo {
        friendly: name.to_string(),
        kind,
        flags: f,
        native,
        coerce,
        enums,
        ret: (*ret != "-").then(|| ret.to_string()),
    };
    Ok((class, info))
}
