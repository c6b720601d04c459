//! The upstream behind the `test` connector (`tests/catalogs/conformance/test.yaml`): the
//! answers the conformance suites' fixture tools, resources and completion expect, as a plain
//! HTTP API the catalog declares like any other. It knows nothing of MCP; the platform turns its
//! JSON, its documents (a PNG, a WAV, a text file) and its error into MCP results through the
//! catalog's ordinary features. Listens on 127.0.0.1 only; the bytes are made in code.

use std::net::SocketAddr;

use axum::Router;
use axum::extract::{Path, Query};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use serde::Deserialize;
use serde_json::json;

/// Starts the fixture upstream on a free loopback port.
pub async fn spawn() -> std::io::Result<(SocketAddr, tokio::task::JoinHandle<()>)> {
    let listener = tokio::net::TcpListener::bind((std::net::Ipv4Addr::LOCALHOST, 0)).await?;
    let addr = listener.local_addr()?;
    let handle = tokio::spawn(async move {
        let _ = axum::serve(listener, router()).await;
    });
    Ok((addr, handle))
}

fn router() -> Router {
    Router::new()
        .route("/simple-text", get(simple_text))
        .route("/image", get(image))
        .route("/audio", get(audio))
        .route("/embedded", get(embedded))
        .route("/mixed", get(mixed))
        .route("/error", get(error))
        .route("/static-text", get(static_text))
        .route("/template/{id}/data", get(template_data))
        .route("/values", get(values))
        .route("/steps", get(steps))
        // `test_tool_with_task`'s job (the jobs fixture's routes).
        .merge(crate::jobs_upstream::router(Default::default()))
}

async fn simple_text() -> Response {
    axum::Json(json!({"text": "This is a simple text response for testing."})).into_response()
}

async fn image() -> Response {
    ([(header::CONTENT_TYPE, "image/png")], png_1x1_red()).into_response()
}

async fn audio() -> Response {
    ([(header::CONTENT_TYPE, "audio/wav")], wav_silence()).into_response()
}

async fn embedded() -> Response {
    (
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "This is an embedded resource content.",
    )
        .into_response()
}

/// Text with an image and a document inside the JSON, base64, as some APIs send attachments.
async fn mixed() -> Response {
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::STANDARD.encode(bytes);
    axum::Json(json!({
        "text": "Multiple content types test:",
        "image": b64(&png_1x1_red()),
        "resource": b64(br#"{"test":"data","value":123}"#),
    }))
    .into_response()
}

/// A refusal in the shape the catalog reads (`error_message: message`).
async fn error() -> Response {
    (
        StatusCode::BAD_REQUEST,
        axum::Json(json!({"message": "This tool intentionally returns an error for testing"})),
    )
        .into_response()
}

async fn static_text() -> Response {
    axum::Json(json!({"text": "This is the content of the static text resource."})).into_response()
}

async fn template_data(Path(id): Path<String>) -> Response {
    axum::Json(json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}))
        .into_response()
}

#[derive(Deserialize)]
struct Page {
    page: Option<u32>,
}

/// One page of the values `arg1` completes from.
async fn values(Query(q): Query<Page>) -> Response {
    let items = if q.page.unwrap_or(1) == 1 {
        json!([{"value": "test-value-1"}, {"value": "test-value-2"}, {"value": "other"}])
    } else {
        json!([])
    };
    axum::Json(json!({"items": items, "total": 3})).into_response()
}

/// Steps the progress fixture counts: 250 over three pages of 100 (the aggregation's page size),
/// so an aggregation reads three pages and reports each.
async fn steps(Query(q): Query<Page>) -> Response {
    const STEPS: u32 = 250;
    let first = (q.page.unwrap_or(1).max(1) - 1).saturating_mul(100);
    let items: Vec<_> = (first..STEPS.min(first.saturating_add(100)))
        .map(|n| json!({"n": n}))
        .collect();
    axum::Json(json!({"items": items, "total": STEPS})).into_response()
}

/// A 1×1 red PNG: signature, IHDR, one stored (uncompressed) zlib block of IDAT, IEND, with
/// their CRCs and the zlib Adler-32 computed here.
pub fn png_1x1_red() -> Vec<u8> {
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    let ihdr = [0, 0, 0, 1, 0, 0, 0, 1, 8, 2, 0, 0, 0]; // 1×1, 8-bit RGB
    chunk(&mut png, b"IHDR", &ihdr);
    let raw = [0u8, 0xFF, 0, 0]; // filter 0, then R G B
    let mut zlib = vec![0x78, 0x01, 0x01];
    zlib.extend_from_slice(&(raw.len() as u16).to_le_bytes());
    zlib.extend_from_slice(&(!(raw.len() as u16)).to_le_bytes());
    zlib.extend_from_slice(&raw);
    zlib.extend_from_slice(&adler32(&raw).to_be_bytes());
    chunk(&mut png, b"IDAT", &zlib);
    chunk(&mut png, b"IEND", &[]);
    png
}

fn chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn adler32(bytes: &[u8]) -> u32 {
    let (mut a, mut b) = (1u32, 0u32);
    for &x in bytes {
        a = (a + u32::from(x)) % 65_521;
        b = (b + a) % 65_521;
    }
    (b << 16) | a
}

/// A 10 ms mono 8 kHz 16-bit PCM WAV of silence.
pub fn wav_silence() -> Vec<u8> {
    let samples = 80u32;
    let data_len = samples * 2;
    let mut wav = b"RIFF".to_vec();
    wav.extend_from_slice(&(36 + data_len).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes());
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // mono
    wav.extend_from_slice(&8_000u32.to_le_bytes());
    wav.extend_from_slice(&16_000u32.to_le_bytes()); // byte rate
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes());
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&data_len.to_le_bytes());
    wav.resize(wav.len() + data_len as usize, 0);
    wav
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checksums_are_the_standard_ones() {
        assert_eq!(crc32(b"IEND"), 0xAE42_6082);
        assert_eq!(adler32(b"Wikipedia"), 0x11E6_0398);
        let png = png_1x1_red();
        assert!(png.ends_with(&[0x49, 0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82]));
        assert_eq!(wav_silence().len(), 44 + 160);
    }
}
