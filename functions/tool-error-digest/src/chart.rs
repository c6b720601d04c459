//! The errors-per-day chart: stacked bars, one per day, one colour per top tool, drawn into an
//! indexed-colour bitmap and encoded as PNG. Labels (day of month, y-axis counts) use a 3×5 pixel
//! digit font drawn here; tool names live in the HTML legend, in the same colours.

use crate::digest::Chart;

pub const WIDTH: u32 = 560;
pub const HEIGHT: u32 = 200;

/// Series colours (RGB), in top-tool order; the HTML legend uses the same.
pub const SERIES_COLORS: [[u8; 3]; 5] = [
    [0x4e, 0x79, 0xa7],
    [0xf2, 0x8e, 0x2b],
    [0xe1, 0x57, 0x59],
    [0x76, 0xb7, 0xb2],
    [0x59, 0xa1, 0x4f],
];

const WHITE: u8 = 0;
const GRID: u8 = 1;
const AXIS: u8 = 2;
const FIRST_SERIES: u8 = 3;
const BASE_PALETTE: [[u8; 3]; 3] = [[0xff, 0xff, 0xff], [0xe6, 0xe6, 0xe6], [0x55, 0x55, 0x55]];

const LEFT: u32 = 40;
const RIGHT: u32 = 12;
const TOP: u32 = 12;
const BOTTOM: u32 = 24;
const SCALE: u32 = 2;

/// `#4e79a7`.
pub fn hex(color: [u8; 3]) -> String {
    format!("#{:02x}{:02x}{:02x}", color[0], color[1], color[2])
}

/// The chart as PNG, or `None` when there is nothing to draw (no failed calls).
pub fn render_png(chart: &Chart) -> Option<Vec<u8>> {
    let max = chart.max_day_total();
    if max == 0 || chart.days.is_empty() {
        return None;
    }
    let mut canvas = Canvas::new(WIDTH, HEIGHT);
    let plot_w = WIDTH - LEFT - RIGHT;
    let plot_h = HEIGHT - TOP - BOTTOM;
    let base = HEIGHT - BOTTOM;
    let top_value = nice_ceiling(max);

    for step in 0..=2u64 {
        let value = top_value * step / 2;
        let y = base - (value * u64::from(plot_h) / top_value) as u32;
        canvas.fill(LEFT, y, plot_w, 1, if step == 0 { AXIS } else { GRID });
        let label = value.to_string();
        let x = LEFT - 6 - text_width(&label);
        canvas.text(x, y.saturating_sub(5 * SCALE / 2), &label, AXIS);
    }

    let slot = plot_w / chart.days.len() as u32;
    let bar = slot * 3 / 5;
    for (d, day) in chart.days.iter().enumerate() {
        let x = LEFT + slot * d as u32 + (slot - bar) / 2;
        let mut stacked = 0u64;
        for (s, (_, counts)) in chart.series.iter().enumerate().take(SERIES_COLORS.len()) {
            let count = counts.get(d).copied().unwrap_or(0);
            if count == 0 {
                continue;
            }
            let y0 = scaled(stacked, top_value, plot_h);
            stacked += count;
            let y1 = scaled(stacked, top_value, plot_h);
            canvas.fill(x, base - y1, bar, y1 - y0, FIRST_SERIES + s as u8);
        }
        let label = format!("{:02}", day.day());
        let lx = x + bar / 2 - text_width(&label) / 2;
        canvas.text(lx, base + 6, &label, AXIS);
    }
    canvas.encode()
}

fn scaled(value: u64, top: u64, height: u32) -> u32 {
    (value * u64::from(height) / top) as u32
}

/// The smallest even number of the form m × 10ⁿ (m in 1, 2, 4, 6, 8, 10) at or above `n`, so the
/// axis ends on a round number and the half-way grid line is a whole one.
fn nice_ceiling(n: u64) -> u64 {
    let mut magnitude = 1;
    loop {
        for m in [1, 2, 4, 6, 8, 10] {
            if m * magnitude >= n && (m * magnitude) % 2 == 0 {
                return m * magnitude;
            }
        }
        magnitude *= 10;
    }
}

/// 3×5 digits, one row per entry, high bit on the left.
const DIGITS: [[u8; 5]; 10] = [
    [0b111, 0b101, 0b101, 0b101, 0b111],
    [0b010, 0b110, 0b010, 0b010, 0b111],
    [0b111, 0b001, 0b111, 0b100, 0b111],
    [0b111, 0b001, 0b111, 0b001, 0b111],
    [0b101, 0b101, 0b111, 0b001, 0b001],
    [0b111, 0b100, 0b111, 0b001, 0b111],
    [0b111, 0b100, 0b111, 0b101, 0b111],
    [0b111, 0b001, 0b001, 0b001, 0b001],
    [0b111, 0b101, 0b111, 0b101, 0b111],
    [0b111, 0b101, 0b111, 0b001, 0b111],
];

fn text_width(text: &str) -> u32 {
    (text.len() as u32 * 4).saturating_sub(1) * SCALE
}

struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new(width: u32, height: u32) -> Canvas {
        Canvas {
            width,
            height,
            pixels: vec![WHITE; (width * height) as usize],
        }
    }

    fn fill(&mut self, x: u32, y: u32, w: u32, h: u32, color: u8) {
        for row in y..(y + h).min(self.height) {
            for col in x..(x + w).min(self.width) {
                self.pixels[(row * self.width + col) as usize] = color;
            }
        }
    }

    /// Digits only; anything else is skipped.
    fn text(&mut self, x: u32, y: u32, text: &str, color: u8) {
        for (i, c) in text.chars().enumerate() {
            let Some(glyph) = c.to_digit(10).map(|d| DIGITS[d as usize]) else {
                continue;
            };
            let gx = x + i as u32 * 4 * SCALE;
            for (row, bits) in glyph.iter().enumerate() {
                for col in 0..3 {
                    if bits & (0b100 >> col) != 0 {
                        let px = gx + col * SCALE;
                        let py = y + row as u32 * SCALE;
                        self.fill(px, py, SCALE, SCALE, color);
                    }
                }
            }
        }
    }

    fn encode(&self) -> Option<Vec<u8>> {
        let mut palette: Vec<u8> = BASE_PALETTE.iter().flatten().copied().collect();
        palette.extend(SERIES_COLORS.iter().flatten());
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, self.width, self.height);
        encoder.set_color(png::ColorType::Indexed);
        encoder.set_depth(png::BitDepth::Eight);
        encoder.set_palette(palette);
        encoder.set_compression(png::Compression::High);
        // Writing into a Vec only fails on a bad header, which the constants above rule out.
        let mut writer = encoder.write_header().ok()?;
        writer.write_image_data(&self.pixels).ok()?;
        writer.finish().ok()?;
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chart(series: Vec<(&str, Vec<u64>)>) -> Chart {
        let first: jiff::civil::Date = "2026-11-23".parse().unwrap();
        Chart {
            days: (0..7).map(|i| first + jiff::Span::new().days(i)).collect(),
            series: series
                .into_iter()
                .map(|(t, v)| (t.to_string(), v))
                .collect(),
        }
    }

    /// Decodes a PNG to (width, height, RGB pixels).
    fn decode(png_bytes: &[u8]) -> (u32, u32, Vec<[u8; 3]>) {
        let mut decoder = png::Decoder::new(std::io::Cursor::new(png_bytes));
        decoder.set_transformations(png::Transformations::EXPAND);
        let mut reader = decoder.read_info().unwrap();
        let mut buf = vec![0; reader.output_buffer_size().unwrap()];
        let info = reader.next_frame(&mut buf).unwrap();
        let pixels = buf[..info.buffer_size()]
            .chunks(3)
            .map(|p| [p[0], p[1], p[2]])
            .collect();
        (info.width, info.height, pixels)
    }

    #[test]
    fn chart_is_a_small_png_with_a_bar_per_series_colour() {
        let c = chart(vec![
            ("a", vec![4, 0, 1, 0, 0, 0, 7]),
            ("b", vec![0, 2, 0, 0, 0, 0, 3]),
        ]);
        let bytes = render_png(&c).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
        assert!(bytes.len() < 8_000, "{} bytes", bytes.len());
        let (w, h, pixels) = decode(&bytes);
        assert_eq!((w, h), (WIDTH, HEIGHT));
        for colour in &SERIES_COLORS[..2] {
            assert!(pixels.contains(colour), "{colour:?} missing");
        }
        assert!(!pixels.contains(&SERIES_COLORS[2]));
    }

    #[test]
    fn tallest_bar_reaches_at_most_the_top_grid_line() {
        let c = chart(vec![("a", vec![0, 0, 0, 0, 0, 0, 10])]);
        let (w, _, pixels) = decode(&render_png(&c).unwrap());
        let top_row = (0..HEIGHT)
            .find(|y| (0..w).any(|x| pixels[(y * w + x) as usize] == SERIES_COLORS[0]))
            .unwrap();
        assert_eq!(top_row, TOP);
    }

    #[test]
    fn nothing_to_draw_gives_no_image() {
        assert_eq!(render_png(&chart(vec![])), None);
        assert_eq!(render_png(&chart(vec![("a", vec![0; 7])])), None);
    }

    #[test]
    fn y_axis_tops_at_a_round_even_number() {
        let tops: Vec<u64> = [1, 2, 3, 7, 10, 11, 45, 130].map(nice_ceiling).to_vec();
        assert_eq!(tops, [2, 2, 4, 8, 10, 20, 60, 200]);
    }
}
