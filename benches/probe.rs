//! Probing cost must not depend on payload size: a 20 MB data URL against a 20 KB one.
//!
//! Run: `cargo bench --bench probe`. Each image is a real fixture (a JPEG with a 29 KB EXIF
//! segment before its frame header, and a PNG) padded after its header to the target size.

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

criterion_group!(benches, bench_probe);
criterion_main!(benches);
