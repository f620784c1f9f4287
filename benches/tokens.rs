//! Counting tokens against tiktoken (the `tiktoken-rs` crate: tiktoken's own byte-pair merge
//! and its regex), in one process:
//! - on three corpora made from the real text on this machine, each line once (no repeats):
//!   prose (the documentation under /usr/share/doc and the licenses of
//!   /usr/share/common-licenses), code (the Rust, C and Python sources of the crates under
//!   ~/.cargo/registry/src), and multilingual text and logs (the translations of the gettext
//!   catalogs under /usr/share/locale, and /var/log's dpkg, apt and alternatives logs); and the
//!   three together, the mixed corpus. Counts are checked equal to tiktoken-rs's before timing;
//! - on a ~3 MB mixed text, the lines of every vendored text (prose in five languages, code,
//!   JSON, logs, emoji) shuffled together (each line comes back ~18 times, as in long agent
//!   sessions), and on the vendored texts once each (167 KB, no repeats but the language's);
//! - the pre-tokenizer alone against the regex it replaces (`bpe-openai`'s split);
//! - the first use, in a fresh process each: reading the built-in vocabulary (what the library
//!   does), against the two ways of keeping `bpe-openai`'s precomputed tables smaller:
//!   gzip-compressed and expanded on first use, or built from the vocabulary on first use.
//!
//! Each round counts once with each, alternately; the medians of the thread's CPU time are
//! compared. Run: `cargo bench --bench tokens` (add `-- --quick` for fewer rounds, `--corpora`
//! for the corpora alone).

use ankita::{Measure, Tokenizer};
use std::collections::HashSet;
use std::hint::black_box;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

#[path = "support/clock.rs"]
mod clock;
use clock::{median, thread_cpu};

fn ms(t: Duration) -> f64 {
    t.as_secs_f64() * 1e3
}

fn vendored_texts() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/text");
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .expect("tests/fixtures/text")
        .map(|e| e.expect("entry").path())
        .filter(|p| !p.ends_with("SOURCES.md"))
        .collect();
    names.sort();
    names
        .iter()
        .map(|p| std::fs::read_to_string(p).expect("text"))
        .collect()
}

/// The vendored texts' lines, shuffled (a fixed seed) to about `size` bytes.
fn mixed_text(size: usize) -> String {
    let lines: Vec<&str> = Vec::new();
    let texts = vendored_texts();
    let lines = texts.iter().fold(lines, |mut lines, t| {
        lines.extend(t.split_inclusive('\n'));
        lines
    });
    let mut out = String::with_capacity(size + 4096);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    while out.len() < size {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        out.push_str(lines[(seed % lines.len() as u64) as usize]);
    }
    out
}

/// (ours, theirs) medians over `rounds` alternating runs.
fn race(rounds: usize, mut ours: impl FnMut(), mut theirs: impl FnMut()) -> (Duration, Duration) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let t = thread_cpu();
        ours();
        a.push(thread_cpu() - t);
        let t = thread_cpu();
        theirs();
        b.push(thread_cpu() - t);
    }
    (median(a), median(b))
}

fn mb_s(bytes: usize, t: Duration) -> f64 {
    bytes as f64 / 1e6 / t.as_secs_f64()
}

fn counting(rounds: usize) {
    let mixed = mixed_text(3_000_000);
    let once = vendored_texts().concat();
    for (tokenizer, tiktoken, reference) in [
        (
            Tokenizer::O200kBase,
            tiktoken_rs::o200k_base_singleton(),
            bpe_openai::o200k_base(),
        ),
        (
            Tokenizer::Cl100kBase,
            tiktoken_rs::cl100k_base_singleton(),
            bpe_openai::cl100k_base(),
        ),
    ] {
        let name = tokenizer.name();
        let measure = Measure::exact(tokenizer);
        for (what, text) in [("3 MB mixed", &mixed), ("texts once", &once)] {
            let ours = measure.text(text);
            let theirs = tiktoken.encode_ordinary(text).len() as u64;
            assert_eq!(ours, theirs, "{name}: the counts differ");
            let (a, b) = race(
                rounds,
                || {
                    black_box(measure.text(black_box(text)));
                },
                || {
                    black_box(tiktoken.encode_ordinary(black_box(text)).len());
                },
            );
            println!(
                "{name}, {what} ({:.2} MB, {ours} tokens): count_tokens {:.1} ms ({:.1} MB/s), \
                 tiktoken-rs encode_ordinary {:.1} ms ({:.1} MB/s): {:.2}x tiktoken",
                text.len() as f64 / 1e6,
                ms(a),
                mb_s(text.len(), a),
                ms(b),
                mb_s(text.len(), b),
                b.as_secs_f64() / a.as_secs_f64(),
            );
        }
        let (a, b) = race(
            rounds,
            || {
                black_box(tokenizer.piece_count(black_box(&mixed)));
            },
            || {
                black_box(reference.split(black_box(&mixed)).count());
            },
        );
        println!(
            "{name}, 3 MB mixed: pre-tokenizer {:.1} MB/s, the regex (bpe-openai) {:.1} MB/s: \
             {:.2}x",
            mb_s(mixed.len(), a),
            mb_s(mixed.len(), b),
            b.as_secs_f64() / a.as_secs_f64(),
        );
    }
}

/// The files under `root` (recursively, not following links) whose path passes `keep`.
fn files_under(root: &Path, keep: &dyn Fn(&Path) -> bool, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(root) else {
        return;
    };
    for entry in entries.flatten() {
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        let path = entry.path();
        if kind.is_dir() {
            files_under(&path, keep, out);
        } else if kind.is_file() && keep(&path) {
            out.push(path);
        }
    }
}

/// A file's text: gunzipped when its name ends in `.gz`; `None` when it is not UTF-8.
fn text_of_file(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let bytes = if path.extension().is_some_and(|e| e == "gz") {
        let mut raw = Vec::new();
        flate2::read::GzDecoder::new(&bytes[..])
            .read_to_end(&mut raw)
            .ok()?;
        raw
    } else {
        bytes
    };
    String::from_utf8(bytes).ok()
}

/// The translated strings of a gettext catalog (`.mo`, little-endian), one line each.
fn catalog_strings(path: &Path) -> Option<String> {
    let bytes = std::fs::read(path).ok()?;
    let word = |at: usize| -> Option<usize> {
        Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?) as usize)
    };
    if word(0)? != 0x9504_12de {
        return None;
    }
    let (count, table) = (word(8)?, word(16)?);
    let mut out = String::new();
    for i in 1..count {
        // Entry 0 is the catalog's header.
        let (len, at) = (word(table + 8 * i)?, word(table + 8 * i + 4)?);
        let text = std::str::from_utf8(bytes.get(at..at + len)?).ok()?;
        for form in text.split('\0') {
            out.push_str(form);
            out.push('\n');
        }
    }
    Some(out)
}

/// A fixed shuffle (xorshift), so that a corpus samples every package, not the first ones.
fn shuffle<T>(items: &mut [T]) {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for i in (1..items.len()).rev() {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        items.swap(i, (seed % (i as u64 + 1)) as usize);
    }
}

/// The lines of `files` (read by `read`, in a fixed shuffled order), each distinct line once
/// across the corpora (`seen`), to about `size` bytes; at most a thirtieth of it from one file,
/// so that a long changelog does not make the corpus.
fn corpus(
    mut files: Vec<PathBuf>,
    read: &dyn Fn(&Path) -> Option<String>,
    size: usize,
    seen: &mut HashSet<String>,
) -> (String, usize) {
    files.sort();
    shuffle(&mut files);
    let (mut out, mut used) = (String::with_capacity(size + 4096), 0);
    for path in &files {
        let Some(text) = read(path) else {
            continue;
        };
        used += 1;
        let file_end = out.len() + size / 30;
        for line in text.split_inclusive('\n') {
            if out.len() >= file_end {
                break;
            }
            let key = line.trim();
            if !key.is_empty() && !seen.contains(key) {
                seen.insert(key.to_owned());
                out.push_str(line);
                if !line.ends_with('\n') {
                    out.push('\n');
                }
            }
        }
        if out.len() >= size {
            break;
        }
    }
    (out, used)
}

/// The three corpora of real text on this machine, about `size` bytes each: (name, where
/// from, text).
fn machine_corpora(size: usize) -> Vec<(&'static str, String, String)> {
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".into());
    let ext = |p: &Path, exts: &[&str]| {
        p.extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| exts.contains(&e))
    };
    let mut seen = HashSet::new();
    let mut out = Vec::new();

    let mut prose = Vec::new();
    let prose_file = |p: &Path| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        ext(p, &["txt", "md", "rst"])
            || name.starts_with("README")
            || name.starts_with("NEWS")
            || name.starts_with("changelog")
            || name == "copyright"
    };
    files_under(Path::new("/usr/share/doc"), &prose_file, &mut prose);
    files_under(
        Path::new("/usr/share/common-licenses"),
        &|_| true,
        &mut prose,
    );
    let (text, n) = corpus(prose, &text_of_file, size, &mut seen);
    out.push((
        "prose",
        format!("{n} files of /usr/share/doc and /usr/share/common-licenses"),
        text,
    ));

    let mut code = Vec::new();
    let registry = Path::new(&home).join(".cargo/registry/src");
    files_under(&registry, &|p| ext(p, &["rs", "c", "h", "py"]), &mut code);
    let (text, n) = corpus(code, &text_of_file, size, &mut seen);
    out.push((
        "code",
        format!("{n} source files of ~/.cargo/registry/src"),
        text,
    ));

    let mut logs = Vec::new();
    files_under(
        Path::new("/var/log"),
        &|p| ext(p, &["log"]) || p.ends_with("dpkg.log"),
        &mut logs,
    );
    let (mut text, n_logs) = corpus(logs, &text_of_file, size / 4, &mut seen);
    let mut catalogs = Vec::new();
    files_under(
        Path::new("/usr/share/locale"),
        &|p| ext(p, &["mo"]),
        &mut catalogs,
    );
    let (more, n) = corpus(catalogs, &catalog_strings, size - text.len(), &mut seen);
    text.push_str(&more);
    out.push((
        "multilingual and logs",
        format!("{n_logs} logs of /var/log, {n} gettext catalogs of /usr/share/locale"),
        text,
    ));
    out
}

/// Counting the machine's corpora and their concatenation: the counts checked equal to
/// tiktoken-rs's, then each counted alternately with each; MB/s and the ratio.
fn counting_corpora(rounds: usize) {
    let mut corpora = machine_corpora(3_000_000);
    for (name, from, text) in &corpora {
        println!("corpus {name}: {:.2} MB, {from}", text.len() as f64 / 1e6);
    }
    let mixed: String = corpora.iter().map(|c| c.2.as_str()).collect();
    corpora.push(("mixed (the three)", String::new(), mixed));
    for (tokenizer, tiktoken) in [
        (Tokenizer::O200kBase, tiktoken_rs::o200k_base_singleton()),
        (Tokenizer::Cl100kBase, tiktoken_rs::cl100k_base_singleton()),
    ] {
        let name = tokenizer.name();
        let measure = Measure::exact(tokenizer);
        for (what, _, text) in &corpora {
            let ours = measure.text(text);
            let theirs = tiktoken.encode_ordinary(text).len() as u64;
            assert_eq!(ours, theirs, "{name}, {what}: the counts differ");
            let (a, b) = race(
                rounds,
                || {
                    black_box(measure.text(black_box(text)));
                },
                || {
                    black_box(tiktoken.encode_ordinary(black_box(text)).len());
                },
            );
            println!(
                "{name}, {what} ({:.2} MB, {ours} tokens, equal): ankita {:.1} MB/s, \
                 tiktoken-rs {:.1} MB/s: {:.2}x",
                text.len() as f64 / 1e6,
                mb_s(text.len(), a),
                mb_s(text.len(), b),
                b.as_secs_f64() / a.as_secs_f64(),
            );
        }
    }
}

/// `bpe-openai`'s serialized tables for o200k_base, as its build script wrote them.
fn bpe_openai_tables() -> Option<Vec<u8>> {
    let target = std::env::var("CARGO_TARGET_DIR")
        .unwrap_or_else(|_| concat!(env!("CARGO_MANIFEST_DIR"), "/target").into());
    let build = std::path::Path::new(&target).join("release/build");
    std::fs::read_dir(build).ok()?.find_map(|e| {
        let dir = e.ok()?.path();
        let name = dir.file_name()?.to_str()?.to_owned();
        if !name.starts_with("bpe-openai-") {
            return None;
        }
        std::fs::read(dir.join("out/bpe_o200k_base.dict")).ok()
    })
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    e.write_all(bytes).expect("in memory");
    e.finish().expect("in memory")
}

const VOCAB: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/src/tokens/data/o200k_base.tiktoken.gz"
);

/// In a fresh process: one way of making o200k_base usable, timed (CPU, wall).
fn first_use(how: &str, file: Option<&str>) {
    let (t, w) = (thread_cpu(), Instant::now());
    match how {
        "library" => {
            black_box(Measure::exact(Tokenizer::O200kBase).text("Hello, world"));
        }
        "expand" => {
            let gz = std::fs::read(file.expect("a file")).expect("the compressed tables");
            let mut raw = Vec::new();
            flate2::read::GzDecoder::new(&gz[..])
                .read_to_end(&mut raw)
                .expect("gzip");
            let bpe: bpe_openai::byte_pair_encoding::BytePairEncoding =
                rmp_serde::from_slice(&raw).expect("the tables");
            black_box(bpe.count(b"Hello, world"));
        }
        "build" => {
            use base64::Engine;
            let mut text = String::new();
            flate2::read::GzDecoder::new(&std::fs::read(VOCAB).expect("vocabulary")[..])
                .read_to_string(&mut text)
                .expect("gzip");
            let tokens = text.lines().map(|l| {
                let b64 = l.split(' ').next().expect("a token");
                base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .expect("base64")
            });
            let bpe = bpe_openai::byte_pair_encoding::BytePairEncoding::from_dictionary(
                tokens,
                Some(17846336922010275747),
            );
            black_box(bpe.count(b"Hello, world"));
        }
        _ => unreachable!("{how}"),
    }
    println!("{} {}", ms(thread_cpu() - t), ms(w.elapsed()));
}

/// The first-use figures, each the median of `runs` fresh processes.
fn first_uses(runs: usize) {
    let me = std::env::current_exe().expect("this bench");
    let tables = bpe_openai_tables();
    let compressed = tables.as_ref().map(|raw| {
        let gz = gzip(raw);
        let path = std::env::temp_dir().join(format!("bpe_o200k_{}.gz", std::process::id()));
        std::fs::write(&path, &gz).expect("a temporary file");
        (raw.len(), gz.len(), path)
    });
    let time = |how: &str, file: Option<&std::path::Path>| {
        let (mut cpu, mut wall) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            let mut cmd = Command::new(&me);
            cmd.args(["--first-use", how]);
            if let Some(f) = file {
                cmd.arg(f);
            }
            let out = String::from_utf8(cmd.output().expect("a child").stdout).expect("utf-8");
            let (c, w) = out.trim().split_once(' ').expect("two times");
            cpu.push(Duration::from_secs_f64(c.parse::<f64>().expect("ms") / 1e3));
            wall.push(Duration::from_secs_f64(w.parse::<f64>().expect("ms") / 1e3));
        }
        (ms(median(cpu)), ms(median(wall)))
    };
    let vocab = std::fs::metadata(VOCAB).expect("vocabulary").len();
    let (c, w) = time("library", None);
    println!(
        "o200k_base first use, the library (the vocabulary, {:.2} MB gzip, read into its \
         table): {c:.0} ms CPU ({w:.0} ms wall)",
        vocab as f64 / 1e6
    );
    match &compressed {
        Some((raw, gz, path)) => {
            let (c, w) = time("expand", Some(path));
            println!(
                "o200k_base first use, bpe-openai's tables ({:.1} MB) gzip-compressed ({:.1} MB), \
                 expanded: {c:.0} ms CPU ({w:.0} ms wall)",
                *raw as f64 / 1e6,
                *gz as f64 / 1e6
            );
            let _ = std::fs::remove_file(path);
        }
        None => println!("bpe-openai's serialized tables not found under target/: skipped"),
    }
    let (c, w) = time("build", None);
    println!(
        "o200k_base first use, bpe-openai's tables built from the vocabulary ({:.2} MB gzip): \
         {c:.0} ms CPU ({w:.0} ms wall)",
        vocab as f64 / 1e6
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--first-use") {
        first_use(&args[i + 1], args.get(i + 2).map(String::as_str));
        return;
    }
    if args.iter().any(|a| a == "--profile") {
        // One count of the mixed corpus, for a profiler (valgrind --tool=callgrind).
        let text: String = machine_corpora(1_000_000)
            .into_iter()
            .map(|c| c.2)
            .collect();
        for tokenizer in [Tokenizer::O200kBase, Tokenizer::Cl100kBase] {
            for _ in 0..10 {
                black_box(Measure::exact(tokenizer).text(black_box(&text)));
            }
        }
        return;
    }
    let quick = args.iter().any(|a| a == "--quick");
    let rounds = if quick { 5 } else { 15 };
    println!("{rounds} rounds; thread CPU time medians");
    counting_corpora(rounds);
    if args.iter().any(|a| a == "--corpora") {
        return;
    }
    counting(rounds);
    first_uses(if quick { 3 } else { 7 });
}
