//! Plots of leakage against the number of openings, drawn with `plotters`.
//!
//! A plot explains itself: title, labelled axes with numbered ticks, a light grid and a legend
//! naming every coalition and kind of opening. The file's extension picks the format: `.svg`
//! writes a vector image (text as SVG text), anything else a PNG rendered with the DejaVu Sans
//! font embedded in the binary (`assets/`, with its licence), so no system font is needed.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle};

use crate::collusion::SweepPoint;
use crate::error::LeakageError;

/// The embedded font (DejaVu Sans, Bitstream Vera licence: `assets/DejaVuSans-LICENSE.txt`).
const FONT: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");

/// The font family name every text style of this module uses.
const FAMILY: &str = "sans-serif";

const COLOURS: [RGBColor; 8] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0xe3, 0x77, 0xc2),
    RGBColor(0x7f, 0x7f, 0x7f),
];

const COLOUR_NAMES: [&str; 8] = [
    "blue", "orange", "green", "red", "purple", "brown", "pink", "grey",
];

/// Pixel size of a PNG plot (a 9 × 5.6 inch figure at 160 dpi).
const PNG_SIZE: (u32, u32) = (1440, 900);

/// Size of an SVG plot, in SVG user units.
const SVG_SIZE: (u32, u32) = (900, 560);

/// The series drawn: `(coalition, kind)` in drawing order, with their colour names. A
/// coalition keeps its colour across kinds of opening (the kind is told by the line's width).
pub fn legend(points: &[SweepPoint]) -> Vec<(Vec<u16>, String, &'static str)> {
    series(points)
        .into_iter()
        .map(|(c, k, i)| (c, k, COLOUR_NAMES[i % COLOUR_NAMES.len()]))
        .collect()
}

/// `(coalition, kind, colour index)` of every series, in drawing order.
fn series(points: &[SweepPoint]) -> Vec<(Vec<u16>, String, usize)> {
    let mut coalitions: Vec<&Vec<u16>> = Vec::new();
    let mut keys: Vec<(Vec<u16>, String, usize)> = Vec::new();
    for p in points {
        let colour = match coalitions.iter().position(|c| **c == p.coalition) {
            Some(i) => i,
            None => {
                coalitions.push(&p.coalition);
                coalitions.len() - 1
            }
        };
        if !keys
            .iter()
            .any(|(c, k, _)| *c == p.coalition && *k == p.kind)
        {
            keys.push((p.coalition.clone(), p.kind.clone(), colour));
        }
    }
    keys
}

/// Draws the excess leakage (bits, y) against the number of openings (x), one line per
/// coalition (one colour each) and kind of opening (public lines thick, private lines thin with
/// larger markers),
/// titled `title`. Writes SVG when `path` ends in `.svg`, PNG otherwise.
pub fn plot_sweep(points: &[SweepPoint], title: &str, path: &Path) -> Result<(), LeakageError> {
    let svg = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("svg"));
    // Both backends lay text out with the font's metrics, so it is registered for SVG too.
    register_font(FAMILY, FontStyle::Normal, FONT)
        .map_err(|_| "the embedded font does not load".to_owned())
        .and_then(|()| {
            if svg {
                let root = SVGBackend::new(path, SVG_SIZE).into_drawing_area();
                draw_sweep(root, points, title, 1.0)
            } else {
                write_png(path, |root| {
                    draw_sweep(
                        root,
                        points,
                        title,
                        f64::from(PNG_SIZE.0) / f64::from(SVG_SIZE.0),
                    )
                })
            }
        })
        .map_err(|e| LeakageError::Schedule(format!("plot {}: {e}", path.display())))
}

/// Renders `draw` into an RGB buffer of [`PNG_SIZE`] and writes it to `path` as a PNG.
fn write_png(
    path: &Path,
    draw: impl FnOnce(DrawingArea<BitMapBackend<'_>, Shift>) -> Result<(), String>,
) -> Result<(), String> {
    let (w, h) = PNG_SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    draw(BitMapBackend::with_buffer(&mut rgb, PNG_SIZE).into_drawing_area())?;
    let file = std::fs::File::create(path).map_err(|e| e.to_string())?;
    let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().map_err(|e| e.to_string())?;
    writer.write_image_data(&rgb).map_err(|e| e.to_string())?;
    writer.finish().map_err(|e| e.to_string())
}

/// Scales a length given for the SVG size to the backend's size.
fn px(len: f64, scale: f64) -> u32 {
    (len * scale).round() as u32
}

fn draw_sweep<DB: DrawingBackend>(
    root: DrawingArea<DB, Shift>,
    points: &[SweepPoint],
    title: &str,
    scale: f64,
) -> Result<(), String> {
    let e = |e: DrawingAreaErrorKind<DB::ErrorType>| e.to_string();
    let xmax = points.iter().map(|p| p.openings).max().unwrap_or(1).max(1) as f64;
    let ymax = points
        .iter()
        .map(|p| p.excess_bits)
        .fold(1.0f64, f64::max)
        .ceil();
    root.fill(&WHITE).map_err(e)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, (FAMILY, px(22.0, scale)))
        .margin(px(16.0, scale))
        .x_label_area_size(px(48.0, scale))
        .y_label_area_size(px(64.0, scale))
        .build_cartesian_2d(0.0..xmax, 0.0..ymax)
        .map_err(e)?;
    chart
        .configure_mesh()
        .x_desc("openings")
        .y_desc("excess leakage about the deal (bits)")
        .x_labels((xmax as usize + 1).min(20))
        .y_labels((ymax as usize + 1).min(12))
        .x_label_formatter(&|x| format!("{x:.0}"))
        .y_label_formatter(&|y| format!("{y:.0}"))
        .label_style((FAMILY, px(15.0, scale)))
        .axis_desc_style((FAMILY, px(17.0, scale)))
        .light_line_style(RGBColor(0xee, 0xee, 0xee))
        .draw()
        .map_err(e)?;
    for (coalition, kind, colour) in series(points) {
        draw_series(&mut chart, points, &coalition, &kind, colour, scale).map_err(e)?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .label_font((FAMILY, px(15.0, scale)))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()
        .map_err(e)?;
    root.present().map_err(e)
}

type Chart<'a, DB> = ChartContext<
    'a,
    DB,
    Cartesian2d<plotters::coord::types::RangedCoordf64, plotters::coord::types::RangedCoordf64>,
>;

fn draw_series<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    points: &[SweepPoint],
    coalition: &[u16],
    kind: &str,
    index: usize,
    scale: f64,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let colour = COLOURS[index % COLOURS.len()];
    let public = kind == "public";
    let mut pts: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| p.coalition == coalition && p.kind == kind)
        .map(|p| (p.openings as f64, p.excess_bits))
        .collect();
    pts.sort_by(|a, b| a.0.total_cmp(&b.0));
    let width = px(if public { 3.0 } else { 1.5 }, scale);
    let style = ShapeStyle::from(&colour).stroke_width(width);
    let members: Vec<String> = coalition.iter().map(|c| format!("P{c}")).collect();
    let label = format!("{{{}}}, {kind} openings", members.join(", "));
    chart
        .draw_series(LineSeries::new(pts.clone(), style))?
        .label(label)
        .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], style));
    let marker = px(if public { 3.0 } else { 5.0 }, scale);
    chart.draw_series(pts.into_iter().map(|p| Circle::new(p, marker, style)))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn points() -> Vec<SweepPoint> {
        (0..=4)
            .flat_map(|k| {
                [
                    SweepPoint {
                        coalition: vec![1],
                        kind: "public".into(),
                        openings: k,
                        excess_bits: 0.0,
                        excess_is_zero: true,
                        max_marginal_bits: 0.0,
                    },
                    SweepPoint {
                        coalition: vec![1, 2],
                        kind: "private".into(),
                        openings: k,
                        excess_bits: k as f64 * 0.75,
                        excess_is_zero: k == 0,
                        max_marginal_bits: k as f64 * 0.25,
                    },
                ]
            })
            .collect()
    }

    #[test]
    fn svg_plot_has_its_title_axis_names_and_legend() {
        let dir = std::env::temp_dir().join(format!("facedown-plot-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("sweep.svg");
        plot_sweep(&points(), "Excess leakage, N = 3, n = 4", &path).expect("drawn");
        let svg = std::fs::read_to_string(&path).expect("written");
        for text in [
            "Excess leakage, N = 3, n = 4",
            "openings",
            "excess leakage about the deal (bits)",
            "{P1}, public openings",
            "{P1, P2}, private openings",
        ] {
            assert!(svg.contains(text), "the SVG lacks {text:?}");
        }
        std::fs::remove_dir_all(&dir).expect("clean up");
    }

    #[test]
    fn png_plot_draws_text_with_the_embedded_font() {
        let dir = std::env::temp_dir().join(format!("facedown-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("sweep.png");
        plot_sweep(&points(), "Excess leakage, N = 3", &path).expect("drawn");
        let decoder = png::Decoder::new(std::fs::File::open(&path).expect("written"));
        let mut reader = decoder.read_info().expect("a PNG");
        let mut rgb = vec![0; reader.output_buffer_size()];
        let info = reader.next_frame(&mut rgb).expect("one frame");
        std::fs::remove_dir_all(&dir).expect("clean up");
        assert_eq!((info.width, info.height), PNG_SIZE);
        assert_eq!(info.color_type, png::ColorType::Rgb);
        // The title is the only thing drawn in the top band, above the plotting area: the
        // band has dark pixels only if the embedded font rendered the text.
        let row = 3 * PNG_SIZE.0 as usize;
        let band = &rgb[..row * px(40.0, 1.6) as usize];
        let dark_in_title_band = band.chunks(3).filter(|p| p[0] < 128).count();
        assert!(
            dark_in_title_band > 100,
            "only {dark_in_title_band} dark pixels"
        );
    }
}
