//! PDFs that test a reader's bound on decompression, shared by tests/inflate_bound.rs and the
//! memory benchmark (benches/memory.rs), each including this file by its path.

/// A PDF whose only cross-reference stream is `inflated` bytes of zeros, deflated (68 MB
/// deflate to ~66 KB), its stream dictionary given `keys` too (`/Index [0 n]` lists n objects).
pub fn pdf_with_xref(inflated: usize, keys: &str) -> Vec<u8> {
    let zeros = vec![0u8; inflated];
    let deflated = miniz_oxide::deflate::compress_to_vec_zlib(&zeros, 10);
    drop(zeros);
    let mut pdf = b"%PDF-1.7\n".to_vec();
    let offset = pdf.len();
    pdf.extend_from_slice(
        format!(
            "1 0 obj\n<</Type/XRef/W[1 1 1]/Size 3/Root 2 0 R/Filter/FlateDecode/Length {}{keys}>>\nstream\n",
            deflated.len()
        )
        .as_bytes(),
    );
    pdf.extend_from_slice(&deflated);
    pdf.extend_from_slice(format!("\nendstream\nendobj\nstartxref\n{offset}\n%%EOF\n").as_bytes());
    pdf
}
