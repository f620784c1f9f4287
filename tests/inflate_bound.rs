//! A small PDF must not take a lot of memory to read (docs/robustness.md): deflate expands a
//! stream up to 1,032-fold, so an 88 KB request carrying a cross-reference stream of zeros
//! inflated to 68 MB, which the probe held whole (a peak of 66 MB). What a PDF's streams hold
//! inflated is now bounded by its size (`ankita::probe::file::inflate_budget`): the request
//! peaks within 8× its size over a few MB. The allocator below counts the bytes held, so this
//! test is a binary of its own.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

#[path = "support/pdf.rs"]
mod pdf;
use pdf::pdf_with_xref;

struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            let now = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
            PEAK.fetch_max(now, Ordering::Relaxed);
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        unsafe { System.dealloc(p, layout) };
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
    }
    unsafe fn realloc(&self, p: *mut u8, layout: Layout, size: usize) -> *mut u8 {
        let q = unsafe { System.realloc(p, layout, size) };
        if !q.is_null() {
            if size >= layout.size() {
                let now = HELD.fetch_add(size - layout.size(), Ordering::Relaxed)
                    + (size - layout.size());
                PEAK.fetch_max(now, Ordering::Relaxed);
            } else {
                HELD.fetch_sub(layout.size() - size, Ordering::Relaxed);
            }
        }
        q
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// A PDF whose only cross-reference stream is `inflated` bytes of zeros, deflated.
fn pdf_with_xref_of_zeros(inflated: usize) -> Vec<u8> {
    pdf_with_xref(inflated, "")
}

/// The tests count what the whole process holds: they run one at a time.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// The peak of bytes held while `f` runs, above what was held before (no other test running:
/// the caller holds [`ONE_AT_A_TIME`]).
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = HELD.load(Ordering::Relaxed);
    PEAK.store(before, Ordering::Relaxed);
    let out = f();
    (out, PEAK.load(Ordering::Relaxed) - before)
}

#[test]
fn a_small_pdf_inflating_to_68_mb_is_read_within_its_size() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    use base64::Engine;
    let pdf = pdf_with_xref_of_zeros(68 << 20);
    assert!(pdf.len() < 70_000, "{} bytes", pdf.len());
    let b64 = base64::engine::general_purpose::STANDARD.encode(&pdf);
    let request = serde_json::json!({"messages": [{"role": "user", "content": [
        {"type": "text", "text": "Summarise."},
        {"type": "file", "file": {"filename": "q3.pdf",
            "file_data": format!("data:application/pdf;base64,{b64}")}}]}],
        "image_profile": "gemini", "max_bytes": 1_000_000})
    .to_string();
    assert!(
        (85_000..95_000).contains(&request.len()),
        "{}",
        request.len()
    );
    let (answer, peak) = peak_of(|| ankita::api::trim_json(&request));
    eprintln!(
        "request {} bytes (PDF {}): trim peak {peak} bytes, {:.1}× the request",
        request.len(),
        pdf.len(),
        peak as f64 / request.len() as f64
    );
    let v: serde_json::Value = serde_json::from_str(&answer).unwrap();
    assert_eq!(v["ok"], true, "{v}");
    // Its cross-references cannot be read within the bound: an unreadable PDF of its size.
    assert_eq!(v["report"]["warnings"][0]["code"], "unreadable_file", "{v}");
    let bound = 8 * request.len() + (4 << 20);
    assert!(
        peak <= bound,
        "peak {peak} bytes for a request of {} (bound {bound})",
        request.len()
    );
    // The probe alone: within the inflate budget of the file's size (4× over 1 MiB; the
    // inflating buffer grows by doubling, so it may reserve up to twice what it holds) and the
    // file itself. Before the bound: 68 MB.
    let (_, peak) = peak_of(|| ankita::probe::file::probe_file_bytes(&pdf));
    let budget = ankita::probe::file::inflate_budget(pdf.len());
    eprintln!("probe peak {peak} bytes (inflate budget {budget})");
    assert!(
        peak <= 2 * budget + 2 * pdf.len(),
        "probe peak {peak}, budget {budget}"
    );
    assert!(peak < 4 << 20, "probe peak {peak}");
}

#[test]
fn the_budget_scales_with_the_file_and_keeps_real_files_readable() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    use ankita::probe::file::{inflate_budget, probe_file_bytes, FileInfo, MAX_INFLATED};
    assert_eq!(inflate_budget(0), 1 << 20);
    assert_eq!(inflate_budget(100_000), 400_000 + (1 << 20));
    assert_eq!(inflate_budget(usize::MAX), MAX_INFLATED);
    // Real files whose cross-references and objects sit in compressed streams are read as
    // before.
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files");
    for name in ["pdf-3-objstm.pdf", "pdf-10-objstm.pdf"] {
        let bytes = std::fs::read(format!("{dir}/{name}")).unwrap();
        let Ok(FileInfo::Document(d)) = probe_file_bytes(&bytes) else {
            panic!("{name}")
        };
        assert_eq!(d.pages, if name.contains("-10-") { 10 } else { 3 });
    }
}

/// A cross-reference stream within the budget whose `/Index` lists a million free objects
/// (its rows all zeros): the entries it adds are bounded by the file's size (one per 8 bytes
/// over 4,096), not a map of a million entries (about 30 MB).
#[test]
fn a_cross_reference_stream_adds_entries_within_the_files_size() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let pdf = pdf_with_xref(900_000, "/Index[0 1000000]");
    assert!(pdf.len() < 2_000, "{} bytes", pdf.len());
    let (result, peak) = peak_of(|| ankita::probe::file::probe_file_bytes(&pdf));
    assert!(result.is_err(), "{result:?}");
    let budget = ankita::probe::file::inflate_budget(pdf.len());
    eprintln!("probe peak {peak} bytes (inflate budget {budget})");
    assert!(
        peak <= 2 * budget + (1 << 20),
        "probe peak {peak}, budget {budget}"
    );
}
