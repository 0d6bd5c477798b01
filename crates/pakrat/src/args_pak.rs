//! `pakrat pak create` arguments (split from `args.rs`).

use std::path::PathBuf;

use clap::Args;

use crate::args::{JsonArg, KeyArgs};

/// `pakrat pak create`.
#[derive(Args, Debug)]
pub struct PakCreateArgs {
    /// Source folder; its files are packed under their paths below it.
    pub src: PathBuf,
    /// Output .pak.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: PathBuf,
    /// Pak version: 1–15 (4.20 → 5, 4.21 → 7, 4.22/4.23–4.24 → 8, 4.25 → 9,
    /// 4.26–5.6 → 11, 5.8 → 12, 6.0 → 15). Default: the --ue-version
    /// release's, else 11.
    #[arg(long)]
    pub version: Option<u32>,
    /// The engine release the pak is for (4.27, 5.0 … 5.8, 6.0): it decides
    /// the pak version and, from UE 5.6 on, writes the IoStore companion
    /// (Name.utoc + Name.ucas beside the pak) without which those games do
    /// not mount a pak.
    #[arg(long, value_name = "X.Y")]
    pub ue_version: Option<String>,
    /// With --ue-version 5.6 or later: do not write the IoStore companion.
    #[arg(long)]
    pub no_companion: bool,
    /// Version 8 only: 4 compression-method slots (UE 4.22) or 5 (4.23+).
    #[arg(long, value_name = "4|5", default_value_t = 5)]
    pub method_slots: usize,
    /// Mount point.
    #[arg(long = "mount", value_name = "PATH", default_value = "../../../")]
    pub mount: String,
    /// Compression: none, zlib, gzip, lz4 or zstd (Oodle cannot be encoded).
    #[arg(long, value_name = "METHOD", default_value = "none")]
    pub compress: String,
    /// Compression level (the codec's own scale; zlib: libdeflate's 0-12,
    /// default 1, or zlib's 0-9, default 6, with --match-unrealpak).
    #[arg(long, value_name = "N")]
    pub level: Option<i32>,
    /// Zlib: compress with the reference zlib at level 6, as UnrealPak
    /// does, so the pak matches UnrealPak's byte for byte. Costs about 4x
    /// the CPU time of the default (libdeflate), for a pak about 4% smaller.
    #[arg(long)]
    pub match_unrealpak: bool,
    /// Compression block size in bytes.
    #[arg(long, value_name = "N", default_value_t = 65536)]
    pub block_size: u32,
    /// Store a file uncompressed unless compression saves this many bytes
    /// (default: UnrealPak's, 1024 from v10).
    #[arg(long, value_name = "N")]
    pub min_bytes_saved: Option<u64>,
    /// Encrypt the files' data (needs a key).
    #[arg(long)]
    pub encrypt: bool,
    /// Encrypt the index (needs a key).
    #[arg(long)]
    pub encrypt_index: bool,
    /// Version 15: the cipher, ecb or ctr.
    #[arg(long, value_name = "ecb|ctr", default_value = "ecb")]
    pub cipher: String,
    /// With --keys: the GUID of the key to use (default: the main key).
    #[arg(long, value_name = "GUID")]
    pub key_guid: Option<String>,
    /// Order of the files: a text file with one path per line (UnrealPak's
    /// order-file form, `"path" N`, is accepted), or a .pak whose order is
    /// copied; files it does not name follow, sorted.
    #[arg(long, value_name = "FILE")]
    pub order_from: Option<PathBuf>,
    /// Path hash seed (v10+), decimal or 0x-hex (default: derived from the
    /// pak's file name as UnrealPak does).
    #[arg(long, value_name = "N")]
    pub path_hash_seed: Option<String>,
    /// Replace the output if it exists.
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub keys: KeyArgs,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub out: JsonArg,
}
