use super::*;

fn spec(id: u64, size: u64) -> ChunkSpec {
    ChunkSpec {
        id: ChunkId::new(id, 0, 0, 2),
        path: Some(format!("../../../G/{id}.ubulk")),
        data: Data::Bytes(vec![7; size.min(1 << 20) as usize]),
        size,
        memory_mapped: false,
    }
}

fn refused(chunks: &[ChunkSpec], o: &Options, expect: &str) {
    let mut opened = 0;
    let mut open = |_p: u32| -> Result<File> {
        opened += 1;
        Err(Error::Other("no file should be opened".into()))
    };
    let e = write(chunks, None, o, &mut open, &|_| {})
        .unwrap_err()
        .to_string();
    assert!(e.contains(expect), "{e}");
    assert_eq!(opened, 0, "nothing is opened before the checks pass");
}

#[test]
fn what_no_container_can_hold_is_refused_before_writing() {
    let o = Options::default();
    refused(&[spec(1, MAX_40_BIT + 1)], &o, "40-bit size limit");
    refused(
        &[spec(1, 1 << 39), spec(2, 1 << 39)],
        &o,
        "40-bit offset limit",
    );
    refused(&[spec(1, 10), spec(1, 20)], &o, "two chunks have the id");
    let mut bad = spec(3, 10);
    bad.path = Some("../../../G/../../etc/passwd".into());
    refused(&[bad], &o, "climbs out");
    let oodle = Options {
        compression: Method::Oodle,
        ..Options::default()
    };
    refused(&[spec(1, 10)], &oodle, "no Oodle encoder");
    let v2 = Options {
        version: 2,
        ..Options::default()
    };
    refused(&[spec(1, 10)], &v2, "cannot be written");
    let ctr = Options {
        version: 8,
        cipher: Cipher::Ctr,
        key: Some(AesKey([1; 32])),
        ..Options::default()
    };
    refused(&[spec(1, 10)], &ctr, "AES-CTR needs TOC version 10");
}

#[test]
fn alignment_and_partitions_follow_the_engine() {
    // Two small chunks share a 2048-byte window; a third that would
    // cross it starts on the next boundary.
    let chunks = [spec(1, 100), spec(2, 200), spec(3, 1900), spec(4, 70_000)];
    let o = Options {
        partition_size: Some(128 * 1024),
        ..Options::default()
    };
    let (w, _) = written("align", &mut |open| write(&chunks, None, &o, open, &|_| {}));
    let w = w.unwrap();
    let offs: Vec<u64> = w.toc.blocks.iter().map(|b| b.offset).collect();
    // 100 → 112 bytes at 0; 200 → 208 at 112; 1900 would end past 2048:
    // 2048; 70 000 = two blocks from the next 2048 boundary (4096), the
    // second (4464 bytes) still fits in partition 0.
    assert_eq!(offs, vec![0, 112, 2048, 4096, 4096 + 65536]);
    assert_eq!(w.toc.header.partition_count, 1);
}

/// Writes with the partition opener it is given.
type Run<'a> = dyn FnMut(&mut dyn FnMut(u32) -> Result<File>) -> Result<Written> + 'a;

/// The partitions written by `run` (in a fresh folder), read back.
fn written(tag: &str, run: &mut Run<'_>) -> (Result<Written>, Vec<Vec<u8>>) {
    let dir = std::env::temp_dir().join(format!("pakrat-write-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    let mut open = |p: u32| -> Result<File> {
        let path = dir.join(format!("p{p}"));
        files.push(path.clone());
        File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|e| Error::io(&path, e))
    };
    let w = run(&mut open);
    let bytes = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
    std::fs::remove_dir_all(&dir).ok();
    (w, bytes)
}

#[test]
fn a_stream_of_groups_writes_what_the_whole_list_does() {
    // Varied bytes (so zlib has work and CTR IVs differ), small chunks
    // and one over the 1 MiB "large" mark, cut into uneven groups.
    let mut chunks = Vec::new();
    for (k, size) in [100u64, 5000, 70_000, 1_300_000, 3, 200_000, 65_536, 0, 9999]
        .into_iter()
        .enumerate()
    {
        // Noise (xorshift) in the first half, a pattern zlib shrinks
        // in the second: stored and compressed blocks both.
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ k as u64;
        let bytes: Vec<u8> = (0..size)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                if i < size / 2 {
                    x as u8
                } else {
                    (i % 7) as u8
                }
            })
            .collect();
        chunks.push(ChunkSpec {
            id: ChunkId::new(k as u64 + 1, 0, 0, 2),
            path: Some(format!("../../../G/{k}.ubulk")),
            data: Data::Shared(std::sync::Arc::new(bytes)),
            size,
            memory_mapped: k == 5,
        });
    }
    let o = Options {
        version: 10,
        compression: Method::Zlib,
        cipher: Cipher::Ctr,
        key: Some(AesKey([3; 32])),
        partition_size: Some(1 << 18),
        ..Options::default()
    };
    let (whole, whole_bytes) =
        written("whole", &mut |open| write(&chunks, None, &o, open, &|_| {}));
    let whole = whole.unwrap();
    let mut groups: Vec<Vec<ChunkSpec>> = vec![
        chunks[..2].to_vec(),
        chunks[2..3].to_vec(),
        Vec::new(),
        chunks[3..].to_vec(),
    ];
    groups.reverse();
    let (streamed, stream_bytes) = written("stream", &mut |open| {
        let mut next = || groups.pop().map(Ok);
        write_stream(&mut next, &o, open, &|_| {}).map(|(w, specs)| {
            assert_eq!(specs.len(), chunks.len());
            assert!(specs
                .iter()
                .all(|c| matches!(&c.data, Data::Bytes(b) if b.is_empty())));
            w
        })
    });
    let streamed = streamed.unwrap();
    assert!(whole.toc.header.partition_count > 1);
    assert!(whole.stored_blocks > 0 && whole.stored_blocks < whole.toc.blocks.len() as u64);
    assert_eq!(streamed.utoc, whole.utoc);
    assert_eq!(stream_bytes, whole_bytes);
}

#[test]
fn a_failing_stream_stops_the_writing() {
    let mut groups = vec![
        Err(Error::Other("package 7 did not convert".into())),
        Ok(vec![spec(1, 10)]),
    ];
    let (w, _) = written("fail", &mut |open| {
        let mut next = || groups.pop();
        write_stream(&mut next, &Options::default(), open, &|_| {}).map(|x| x.0)
    });
    let e = w.unwrap_err().to_string();
    assert!(e.contains("package 7 did not convert"), "{e}");
    // Duplicate ids, checked at the end of a stream.
    let mut groups = vec![Ok(vec![spec(1, 10)]), Ok(vec![spec(1, 20)])];
    let (w, _) = written("dup", &mut |open| {
        let mut next = || groups.pop();
        write_stream(&mut next, &Options::default(), open, &|_| {}).map(|x| x.0)
    });
    let e = w.unwrap_err().to_string();
    assert!(e.contains("two chunks have the id"), "{e}");
}

/// A chunk read from a file (block by block, `cut_file`) gives the blocks
/// and hash the same bytes give from memory; a file that is shorter or
/// longer than it was when the list was made is refused, naming the file.
#[test]
fn a_file_chunk_is_cut_as_its_bytes_are_and_a_changed_file_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let bs = 64 << 10;
    for size in [0u64, 5, bs, bs + 1, 3 * bs + 17] {
        let bytes: Vec<u8> = (0..size).map(|i| (i * 7 % 251) as u8).collect();
        let p = t.path().join(format!("f{size}.ubulk"));
        std::fs::write(&p, &bytes).unwrap();
        let cut = |data: Data, size: u64| {
            let s = ChunkSpec {
                data,
                size,
                ..spec(1, 0)
            };
            let mut blocks = Vec::new();
            let h = cut_chunk(&s, None, bs, &mut |j| {
                blocks.push((j.first, j.last, j.raw));
                Ok(())
            });
            h.map(|h| (h, blocks))
        };
        let from_file = cut(Data::File(p.clone()), size).unwrap();
        let from_bytes = cut(Data::Bytes(bytes.clone()), size).unwrap();
        assert_eq!(from_file, from_bytes, "{size} bytes");
        // The file holds one byte more, or one less, than the list says.
        let more = cut(Data::File(p.clone()), size.saturating_sub(1)).map(|_| ());
        if size > 0 {
            let e = more.unwrap_err().to_string();
            assert!(
                e.contains("gives more than") && e.contains(&format!("f{size}.ubulk")),
                "{e}"
            );
        }
        let e = cut(Data::File(p.clone()), size + 1)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not the") && e.contains(&format!("f{size}.ubulk")),
            "{e}"
        );
    }
}
