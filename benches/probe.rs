//! Probing cost must not depend on payload size: a 20 MB data URL against a 20 KB one.
//!
//! Run: `cargo bench --bench probe`. Each image is a real fixture (a JPEG with a 29 KB EXIF
//! segment before its frame header, and a PNG) padded after its header to the target size.
//!
//! Documents and audio (`probe_file`) are read whole (a PDF's page count is at its end): their
//! cost grows with their size, so the group reports throughput. The 10-page PDF fixture is
//! measured as it is and grown to 3.3 MB by an incremental update holding incompressible bytes.

use ankita::probe::probe_data_url;
use base64::{engine::general_purpose::STANDARD, Engine};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use std::hint::black_box;

fn padded_data_url(fixture: &str, media: &str, total_bytes: usize) -> String {
    let path = format!(
        "{}/tests/fixtures/images/{fixture}",
        env!("CARGO_MANIFEST_DIR")
    );
    let mut bytes = std::fs::read(&path).expect("fixture exists");
    // Trailing bytes past the end of the image stand in for a large payload.
    bytes.resize(total_bytes.max(bytes.len()), 0xA5);
    format!("data:{media};base64,{}", STANDARD.encode(&bytes))
}

fn bench_probe(c: &mut Criterion) {
    let mut group = c.benchmark_group("probe_data_url");
    for (fixture, media) in [
        ("jpeg/exif_big_160x120.jpg", "image/jpeg"),
        ("png/rgb_1700x2200.png", "image/png"),
    ] {
        for size in [20_000usize, 20_000_000] {
            let url = padded_data_url(fixture, media, size);
            group.throughput(Throughput::Bytes(url.len() as u64));
            let id = BenchmarkId::new(fixture, format!("{} KB", size / 1000));
            group.bench_with_input(id, &url, |b, url| {
                b.iter(|| probe_data_url(black_box(url)).expect("decodable"))
            });
        }
    }
    group.finish();
}

/// The 10-page fixture with an incremental update adding `extra` bytes of noise.
fn grown_pdf(extra: usize) -> Vec<u8> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files");
    let mut pdf = std::fs::read(format!("{dir}/pdf-10-classic.pdf")).expect("fixture exists");
    let text = String::from_utf8_lossy(&pdf).into_owned();
    let prev: usize = text
        .rsplit("startxref")
        .next()
        .and_then(|t| t.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .expect("startxref");
    let root = text
        .rsplit("/Root")
        .next()
        .and_then(|t| t.split(" R").next())
        .expect("root")
        .trim()
        .to_owned();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let offset = pdf.len() + 1;
    pdf.extend_from_slice(format!("\n9000 0 obj\n<< /Length {extra} >>\nstream\n").as_bytes());
    pdf.extend((0..extra).map(|_| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed as u8
    }));
    pdf.extend_from_slice(b"\nendstream\nendobj\n");
    let xref = pdf.len();
    pdf.extend_from_slice(format!("xref\n9000 1\n{offset:010} 00000 n \ntrailer\n<< /Size 9001 /Root {root} R /Prev {prev} >>\nstartxref\n{xref}\n%%EOF\n").as_bytes());
    pdf
}

fn bench_probe_file(c: &mut Criterion) {
    use ankita::probe::file::probe_file_text;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/files");
    let mp3 = std::fs::read(format!("{dir}/mp3-30s-notag.mp3")).expect("fixture exists");
    let mut group = c.benchmark_group("probe_file");
    for (name, bytes) in [
        ("pdf 10 pages, 6 KB", grown_pdf(0)),
        ("pdf 10 pages, 3.3 MB", grown_pdf(3_300_000)),
        ("mp3 30 s, frames walked", mp3),
    ] {
        let url = format!(
            "data:application/octet-stream;base64,{}",
            STANDARD.encode(&bytes)
        );
        group.throughput(Throughput::Bytes(url.len() as u64));
        group.bench_with_input(BenchmarkId::from_parameter(name), &url, |b, url| {
            b.iter(|| probe_file_text(black_box(url)).expect("readable"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench_probe, bench_probe_file);
criterion_main!(benches);
