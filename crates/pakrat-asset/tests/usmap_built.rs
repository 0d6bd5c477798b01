//! `.usmap` files built by hand, of every version (0-4), read back; and
//! hostile ones (truncated, huge counts, deep type nesting, bad name
//! indices, lying sizes) that must fail with a clear error, never panic
//! or allocate what the file cannot back.

use pakrat_asset::props::{PropType, SchemaProperty, StructSchema};
use pakrat_asset::usmap::{Compression, Usmap, UsmapVersion, MAX_TYPE_DEPTH};
use pakrat_codec::compress::{compress, Method};

/// A tiny `.usmap` writer: names are interned, the rest written as the
/// format lays it out.
struct Builder {
    version: u8,
    names: Vec<String>,
    enums: Vec<u8>,
    enum_count: u32,
    structs: Vec<u8>,
    struct_count: u32,
    tail: Vec<u8>,
}

impl Builder {
    fn new(version: u8) -> Self {
        Builder {
            version,
            names: Vec::new(),
            enums: Vec::new(),
            enum_count: 0,
            structs: Vec::new(),
            struct_count: 0,
            tail: Vec::new(),
        }
    }

    fn name(&mut self, n: &str) -> [u8; 4] {
        let i = match self.names.iter().position(|x| x == n) {
            Some(i) => i,
            None => {
                self.names.push(n.to_string());
                self.names.len() - 1
            }
        };
        (i as i32).to_le_bytes()
    }

    /// An enum: entries (value, name); values are written from version 4.
    fn add_enum(&mut self, name: &str, entries: &[(u64, &str)]) {
        let mut b = self.name(name).to_vec();
        if self.version >= 3 {
            b.extend((entries.len() as u16).to_le_bytes());
        } else {
            b.push(entries.len() as u8);
        }
        for (v, n) in entries {
            if self.version >= 4 {
                b.extend(v.to_le_bytes());
            }
            b.extend(self.name(n));
        }
        self.enums.extend(b);
        self.enum_count += 1;
    }

    /// A struct: properties (index, dim, name, type bytes from [`Self::ty`]).
    fn add_struct(
        &mut self,
        name: &str,
        sup: Option<&str>,
        count: u16,
        props: &[(u16, u8, &str, Vec<u8>)],
    ) {
        let mut b = self.name(name).to_vec();
        match sup {
            Some(s) => b.extend(self.name(s)),
            None => b.extend((-1i32).to_le_bytes()),
        }
        b.extend(count.to_le_bytes());
        b.extend((props.len() as u16).to_le_bytes());
        for (i, d, n, t) in props {
            b.extend(i.to_le_bytes());
            b.push(*d);
            b.extend(self.name(n));
            b.extend(t);
        }
        self.structs.extend(b);
        self.struct_count += 1;
    }

    fn payload(&self) -> Vec<u8> {
        let mut p = (self.names.len() as u32).to_le_bytes().to_vec();
        for n in &self.names {
            if self.version >= 2 {
                p.extend((n.len() as u16).to_le_bytes());
            } else {
                p.push(n.len() as u8);
            }
            p.extend(n.as_bytes());
        }
        p.extend(self.enum_count.to_le_bytes());
        p.extend(&self.enums);
        p.extend(self.struct_count.to_le_bytes());
        p.extend(&self.structs);
        p.extend(&self.tail);
        p
    }

    /// The whole file: `versioning` is written from version 1.
    fn file(&self, versioning: Option<Versioning<'_>>, method: u8) -> Vec<u8> {
        let payload = self.payload();
        let stored = match method {
            0 => payload.clone(),
            3 => compress(&Method::Zstd, None, &payload).unwrap(),
            _ => panic!("no encoder for method {method}"),
        };
        header(
            self.version,
            versioning,
            method,
            stored.len() as u32,
            payload.len() as u32,
            &stored,
        )
    }
}

/// `(ue4, ue5, custom versions, netcl)` of a versioned file.
type Versioning<'a> = (i32, i32, &'a [([u8; 16], i32)], u32);

fn header(
    version: u8,
    versioning: Option<Versioning<'_>>,
    method: u8,
    comp: u32,
    decomp: u32,
    stored: &[u8],
) -> Vec<u8> {
    let mut f = vec![0xC4, 0x30, version];
    if version >= 1 {
        match versioning {
            None => f.extend(0i32.to_le_bytes()),
            Some((ue4, ue5, custom, cl)) => {
                f.extend(1i32.to_le_bytes());
                f.extend(ue4.to_le_bytes());
                f.extend(ue5.to_le_bytes());
                f.extend((custom.len() as i32).to_le_bytes());
                for (g, v) in custom {
                    f.extend(g);
                    f.extend(v.to_le_bytes());
                }
                f.extend(cl.to_le_bytes());
            }
        }
    }
    f.push(method);
    f.extend(comp.to_le_bytes());
    f.extend(decomp.to_le_bytes());
    f.extend(stored);
    f
}

/// Type trees in the format's bytes.
mod ty {
    pub fn leaf(code: u8) -> Vec<u8> {
        vec![code]
    }
    pub fn array(inner: Vec<u8>) -> Vec<u8> {
        [vec![8], inner].concat()
    }
    pub fn set(inner: Vec<u8>) -> Vec<u8> {
        [vec![25], inner].concat()
    }
    pub fn optional(inner: Vec<u8>) -> Vec<u8> {
        [vec![28], inner].concat()
    }
    pub fn map(k: Vec<u8>, v: Vec<u8>) -> Vec<u8> {
        [vec![24], k, v].concat()
    }
    pub fn strukt(name: [u8; 4]) -> Vec<u8> {
        [vec![9], name.to_vec()].concat()
    }
    pub fn enm(inner: Vec<u8>, name: [u8; 4]) -> Vec<u8> {
        [vec![26], inner, name.to_vec()].concat()
    }
}

/// The sample schema every version writes.
fn sample(version: u8) -> Builder {
    let mut b = Builder::new(version);
    let _ = b.name("Comment: built by usmap_built.rs");
    b.add_enum("EColor", &[(0, "Red"), (5, "Green"), (9, "EColor_MAX")]);
    let vec_name = b.name("Vector");
    let ecolor = b.name("EColor");
    let inner = b.name("Inner");
    b.add_struct(
        "Inner",
        None,
        2,
        &[(0, 1, "X", ty::leaf(3)), (1, 1, "Tag", ty::leaf(5))],
    );
    b.add_struct(
        "Outer",
        Some("Inner"),
        8,
        &[
            (0, 3, "Fixed", ty::leaf(2)),
            (3, 1, "Pos", ty::strukt(vec_name)),
            (4, 1, "Kind", ty::enm(ty::leaf(0), ecolor)),
            (
                5,
                1,
                "Deep",
                ty::map(ty::leaf(5), ty::array(ty::strukt(inner))),
            ),
            (6, 1, "Maybe", ty::optional(ty::set(ty::leaf(21)))),
            (7, 1, "Raw", ty::leaf(0)),
        ],
    );
    b
}

fn p(index: u16, array_dim: u8, name: &str, ty: PropType) -> SchemaProperty {
    SchemaProperty {
        index,
        array_dim,
        name: name.into(),
        ty,
    }
}

fn check_sample(u: &Usmap, version: u8) {
    assert_eq!(u.version.number(), version);
    assert_eq!(u.names[0], "Comment: built by usmap_built.rs");
    let e = u.find_enum("EColor").unwrap();
    let values: Vec<i64> = e.entries.iter().map(|x| x.0).collect();
    // Before version 4 a value is the entry's position.
    assert_eq!(
        values,
        if version >= 4 {
            vec![0, 5, 9]
        } else {
            vec![0, 1, 2]
        }
    );
    assert_eq!(e.entries[1].1, "Green");
    let outer = u.find_struct("Outer").unwrap();
    let b = |t: PropType| Box::new(t);
    assert_eq!(
        *outer,
        StructSchema {
            name: "Outer".into(),
            super_name: Some("Inner".into()),
            property_count: 8,
            properties: vec![
                p(0, 3, "Fixed", PropType::Int),
                p(3, 1, "Pos", PropType::Struct("Vector".into())),
                p(
                    4,
                    1,
                    "Kind",
                    PropType::Enum {
                        name: "EColor".into(),
                        underlying: Some(b(PropType::Byte(None)))
                    }
                ),
                p(
                    5,
                    1,
                    "Deep",
                    PropType::Map(
                        b(PropType::Name),
                        b(PropType::Array(b(PropType::Struct("Inner".into()))))
                    )
                ),
                p(
                    6,
                    1,
                    "Maybe",
                    PropType::Optional(b(PropType::Set(b(PropType::Int64))))
                ),
                p(7, 1, "Raw", PropType::Byte(None)),
            ],
        }
    );
    assert_eq!(u.find_struct("Inner").unwrap().super_name, None);
    assert_eq!(u.property_count(), 8);
}

#[test]
fn every_version_reads_back() {
    for v in 0..=4u8 {
        let b = sample(v);
        let u = Usmap::parse(&b.file(None, 0)).unwrap_or_else(|e| panic!("v{v}: {e}"));
        check_sample(&u, v);
        assert_eq!(u.compression, Compression::None);
        assert!(u.versioning.is_none());
        let z = Usmap::parse(&b.file(None, 3)).unwrap_or_else(|e| panic!("v{v} zstd: {e}"));
        assert_eq!(z.compression, Compression::Zstandard);
        assert!(z.same_content(&u));
    }
}

#[test]
fn versioning_reads_from_version_1() {
    let guid = [7u8; 16];
    let custom = [(guid, 3), ([1u8; 16], 44)];
    let f = sample(1).file(Some((522, 1012, &custom, 12345)), 0);
    let u = Usmap::parse(&f).unwrap();
    let v = u.versioning.as_ref().expect("versioning");
    assert_eq!((v.ue4, v.ue5, v.net_cl), (522, 1012, 12345));
    assert_eq!(v.custom_versions.len(), 2);
    assert_eq!(v.custom_versions[0].0.to_bytes(), guid);
    assert_eq!(v.custom_versions[1].1, 44);
    check_sample(&u, 1);
}

#[test]
fn large_enums_and_long_names() {
    // Version 3: more than 255 entries; version 2: a name over 255 bytes.
    let mut b = Builder::new(3);
    let names: Vec<String> = (0..300).map(|i| format!("E_{i}")).collect();
    let entries: Vec<(u64, &str)> = names.iter().map(|n| (0, n.as_str())).collect();
    b.add_enum("EBig", &entries);
    let long = "L".repeat(700);
    b.add_struct(&long, None, 0, &[]);
    let u = Usmap::parse(&b.file(None, 0)).unwrap();
    assert_eq!(u.find_enum("EBig").unwrap().entries.len(), 300);
    assert_eq!(
        u.find_enum("EBig").unwrap().entries[299],
        (299, "E_299".to_string())
    );
    assert!(u.find_struct(&long).is_some());
}

#[test]
fn every_type_code_reads() {
    let mut b = Builder::new(4);
    let s = b.name("S");
    let mut props = Vec::new();
    let mut want = Vec::new();
    let mut codes: Vec<u8> = (0..=36).collect();
    codes.extend([0xFD, 0xFE, 0xFF]);
    for (i, c) in codes.iter().enumerate() {
        let bytes = match c {
            8 | 25 | 28 => vec![*c, 2],
            9 => ty::strukt(s),
            24 => vec![24, 5, 2],
            26 => ty::enm(ty::leaf(2), s),
            _ => vec![*c],
        };
        props.push((i as u16, 1, format!("P{c}"), bytes));
        want.push(match c {
            0 => "ByteProperty",
            16 | 17 => "SoftObjectProperty",
            24 => "MapProperty(NameProperty,IntProperty)",
            26 => "EnumProperty(S,IntProperty)",
            31 => "ClassProperty",
            34 => "VerseStringProperty",
            0xFD => "CustomProperty_FD",
            0xFF => "Unknown",
            _ => "",
        });
    }
    let props_ref: Vec<(u16, u8, &str, Vec<u8>)> = props
        .iter()
        .map(|(i, d, n, t)| (*i, *d, n.as_str(), t.clone()))
        .collect();
    b.add_struct("S", None, props.len() as u16, &props_ref);
    let u = Usmap::parse(&b.file(None, 0)).unwrap();
    let st = u.find_struct("S").unwrap();
    assert_eq!(st.properties.len(), codes.len());
    for (p, w) in st.properties.iter().zip(want) {
        if !w.is_empty() {
            assert_eq!(p.ty.to_string(), w, "{}", p.name);
        }
    }
    assert_eq!(st.properties[1].ty, PropType::Bool);
    assert_eq!(st.properties[30].ty, PropType::AnsiStr);
}

/// The error text of parsing `f`, which must fail.
fn err(f: &[u8]) -> String {
    match Usmap::parse(f) {
        Ok(_) => panic!("parsed a hostile file"),
        Err(e) => e.to_string(),
    }
}

#[test]
fn every_truncation_is_an_error() {
    for v in [0u8, 4] {
        let f = sample(v).file(Some((1, 2, &[([3; 16], 4)], 5)), 0);
        for n in 0..f.len() {
            let e = err(&f[..n]);
            assert!(e.contains("offset"), "v{v} cut at {n}: {e}");
        }
        let z = sample(v).file(None, 3);
        for n in 0..z.len() {
            let _ = err(&z[..n]);
        }
    }
}

#[test]
fn header_values_are_checked() {
    let f = sample(4).file(None, 0);
    let mut bad = f.clone();
    bad[0] = 0;
    assert!(err(&bad).contains("magic"));
    let mut bad = f.clone();
    bad[2] = 5;
    assert!(err(&bad).contains("usmap version 5"), "{}", err(&bad));
    let mut bad = f.clone();
    bad[3] = 2; // bHasVersioning
    assert!(err(&bad).contains("bHasVersioning is 2"));
    let mut bad = f.clone();
    bad[7] = 4; // compression
    assert!(err(&bad).contains("compression method 4"));
    // Stored with two different sizes.
    let mut bad = f.clone();
    bad[12] ^= 1;
    assert!(err(&bad).contains("differs"), "{}", err(&bad));
    // A byte after the payload.
    let mut bad = f.clone();
    bad.push(0);
    assert!(err(&bad).contains("after the payload"));
}

#[test]
fn huge_counts_fail_before_allocating() {
    let f = sample(4).file(None, 0);
    let payload_at = 16;
    // Name count.
    let mut bad = f.clone();
    bad[payload_at..payload_at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(
        err(&bad).contains("names: count 4294967295"),
        "{}",
        err(&bad)
    );
    // Custom version count (version 1 with versioning).
    let g = sample(1).file(Some((1, 2, &[], 5)), 0);
    let mut bad = g.clone();
    bad[15..19].copy_from_slice(&i32::MAX.to_le_bytes());
    assert!(
        err(&bad).contains("custom versions: count"),
        "{}",
        err(&bad)
    );
    bad[15..19].copy_from_slice(&(-1i32).to_le_bytes());
    assert!(err(&bad).contains("negative count"), "{}", err(&bad));
    // Struct count: the last struct count sits right after the enums.
    let b = sample(4);
    let p = b.payload();
    let at = p.len() - b.structs.len() - 4;
    let mut q = p.clone();
    q[at..at + 4].copy_from_slice(&0x0100_0000u32.to_le_bytes());
    assert!(err(&header(4, None, 0, q.len() as u32, q.len() as u32, &q)).contains("structs: count"));
}

#[test]
fn deep_nesting_is_refused() {
    let mut b = Builder::new(4);
    // 100,000 nested arrays: without a depth limit this would overflow the
    // stack.
    let mut t = vec![8u8; 100_000];
    t.push(2);
    b.add_struct("S", None, 1, &[(0, 1, "P", t)]);
    let e = err(&b.file(None, 0));
    assert!(
        e.contains(&format!("nested deeper than {MAX_TYPE_DEPTH}")),
        "{e}"
    );
    // At the limit it reads.
    let mut b = Builder::new(4);
    let mut t = vec![8u8; MAX_TYPE_DEPTH - 1];
    t.push(2);
    b.add_struct("S", None, 1, &[(0, 1, "P", t)]);
    assert!(Usmap::parse(&b.file(None, 0)).is_ok());
}

#[test]
fn name_indices_are_checked() {
    let mut b = Builder::new(4);
    b.add_struct("S", None, 1, &[(0, 1, "P", vec![9, 0xE8, 0x03, 0, 0])]);
    let e = err(&b.file(None, 0));
    assert!(
        e.contains("name index 1000 is outside the name table (2 names)"),
        "{e}"
    );
    let mut b = Builder::new(4);
    b.add_struct(
        "S",
        None,
        1,
        &[(0, 1, "P", vec![9, 0xFF, 0xFF, 0xFF, 0xFF])],
    );
    assert!(err(&b.file(None, 0)).contains("name index -1 (none)"));
    let mut b = Builder::new(4);
    b.add_struct("S", None, 1, &[(0, 1, "P", vec![9, 0, 0, 0, 0x80])]);
    assert!(err(&b.file(None, 0)).contains("outside the name table"));
}

#[test]
fn schema_indices_are_checked() {
    let mut b = Builder::new(4);
    b.add_struct("S", None, 2, &[(1, 2, "P", vec![2])]);
    assert!(err(&b.file(None, 0)).contains("lie outside"));
    let mut b = Builder::new(4);
    b.add_struct("S", None, 3, &[(0, 2, "A", vec![2]), (1, 1, "B", vec![2])]);
    assert!(err(&b.file(None, 0)).contains("share schema index"));
    let mut b = Builder::new(4);
    b.add_struct("S", None, 3, &[(0, 1, "A", vec![40])]);
    assert!(err(&b.file(None, 0)).contains("property type code 40"));
}

#[test]
fn lying_sizes_are_errors() {
    let b = sample(4);
    let payload = b.payload();
    let z = compress(&Method::Zstd, None, &payload).unwrap();
    let n = payload.len() as u32;
    let good = header(4, None, 3, z.len() as u32, n, &z);
    assert!(Usmap::parse(&good).is_ok());
    // Decompressed size one more, one less than the stream gives.
    for d in [n + 1, n - 1] {
        let e = err(&header(4, None, 3, z.len() as u32, d, &z));
        assert!(e.contains("Zstandard payload"), "{e}");
    }
    // A claim no mappings file makes: refused before allocating.
    let e = err(&header(4, None, 3, z.len() as u32, u32::MAX, &z));
    assert!(e.contains("more than 128 times"), "{e}");
    // Compressed size past the end of the file.
    let e = err(&header(4, None, 3, z.len() as u32 + 1, n, &z));
    assert!(e.contains("stored payload"), "{e}");
    // Garbage instead of a Brotli stream.
    let e = err(&header(4, None, 2, 64, 1000, &[0xAB; 64]));
    assert!(e.contains("Brotli"), "{e}");
    // An error inside a compressed payload says so.
    let mut q = payload.clone();
    q[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
    let zq = compress(&Method::Zstd, None, &q).unwrap();
    let e = err(&header(4, None, 3, zq.len() as u32, q.len() as u32, &zq));
    assert!(e.contains("in the Zstandard payload"), "{e}");
}

#[test]
fn extensions_are_listed_and_envp_applied() {
    // A version-3 file (values are positions) whose ENVP gives the values.
    let mut b = sample(3);
    let red = b.name("Red");
    let green = b.name("Green");
    let max = b.name("EColor_MAX");
    let mut envp = vec![0u8];
    envp.extend(1i32.to_le_bytes());
    envp.extend(3i32.to_le_bytes());
    for (n, v) in [(red, 0i64), (green, 5), (max, 9)] {
        envp.extend(n);
        envp.extend(v.to_le_bytes());
    }
    let mut tail = b"CEXT".to_vec();
    tail.push(0);
    tail.extend(2i32.to_le_bytes());
    tail.extend(b"PPTH");
    tail.extend(3u32.to_le_bytes());
    tail.extend([1, 2, 3]);
    tail.extend(b"ENVP");
    tail.extend((envp.len() as u32).to_le_bytes());
    tail.extend(&envp);
    b.tail = tail.clone();
    let u = Usmap::parse(&b.file(None, 0)).unwrap();
    let values: Vec<i64> = u
        .find_enum("EColor")
        .unwrap()
        .entries
        .iter()
        .map(|x| x.0)
        .collect();
    assert_eq!(values, [0, 5, 9]);
    let ids: Vec<(&str, u64, bool)> = u
        .extensions
        .iter()
        .map(|e| (e.id.as_str(), e.size, e.applied))
        .collect();
    assert_eq!(ids, [("PPTH", 3, false), ("ENVP", envp.len() as u64, true)]);
    // Junk after the structs is not taken for extensions.
    b.tail = vec![9, 9, 9, 9, 9];
    assert!(err(&b.file(None, 0)).contains("not extensions"));
    // An extension that claims more bytes than remain.
    let mut t = tail;
    t.truncate(t.len() - 1);
    b.tail = t;
    assert!(err(&b.file(None, 0)).contains("offset"));
}

#[test]
fn open_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("Bad.usmap");
    let mut f = sample(4).file(None, 0);
    f.truncate(40);
    std::fs::write(&path, &f).unwrap();
    let e = Usmap::open(&path).unwrap_err().to_string();
    assert!(e.contains("Bad.usmap") && e.contains("offset"), "{e}");
    assert!(UsmapVersion::from_u8(5).is_none());
}
