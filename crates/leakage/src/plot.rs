//! PNG plots of leakage against the number of openings, drawn with `plotters`' bitmap backend.
//!
//! No text is drawn (so no system font is needed): the plot has axes with one tick per
//! opening on x and one per bit on y, and one polyline per coalition in the colour listed by
//! [`legend`]; the CLI prints the legend and the axis ranges next to the file name.

use std::path::Path;

use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use crate::collusion::SweepPoint;
use crate::error::LeakageError;

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

/// The series drawn: `(coalition, kind)` in drawing order, with their colour names.
pub fn legend(points: &[SweepPoint]) -> Vec<(Vec<u16>, String, &'static str)> {
    let mut keys: Vec<(Vec<u16>, String)> = Vec::new();
    for p in points {
        let k = (p.coalition.clone(), p.kind.clone());
        if !keys.contains(&k) {
            keys.push(k);
        }
    }
    keys.into_iter()
        .enumerate()
        .map(|(i, (c, k))| (c, k, COLOUR_NAMES[i % COLOUR_NAMES.len()]))
        .collect()
}

/// Draws the excess leakage (bits, y) against the number of openings (x), one line per
/// coalition and kind of opening (public lines solid, private lines dotted with markers).
pub fn plot_sweep(points: &[SweepPoint], path: &Path) -> Result<(), LeakageError> {
    let err = |e: String| LeakageError::Schedule(format!("plot: {e}"));
    let xmax = points.iter().map(|p| p.openings).max().unwrap_or(1).max(1) as f64;
    let ymax = points
        .iter()
        .map(|p| p.excess_bits)
        .fold(1.0f64, f64::max)
        .ceil();
    let (w, h) = (800i32, 500i32);
    let root = BitMapBackend::new(path, (w as u32, h as u32)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| err(e.to_string()))?;
    let (l, r, t, b) = (40, w - 20, 20, h - 40);
    let area = root.apply_coord_spec(Cartesian2d::<RangedCoordf64, RangedCoordf64>::new(
        0.0..xmax,
        0.0..ymax,
        (l..r, b..t),
    ));
    // Axes and ticks.
    let axis = ShapeStyle::from(&BLACK).stroke_width(2);
    area.draw(&PathElement::new(vec![(0.0, 0.0), (xmax, 0.0)], axis))
        .map_err(|e| err(e.to_string()))?;
    area.draw(&PathElement::new(vec![(0.0, 0.0), (0.0, ymax)], axis))
        .map_err(|e| err(e.to_string()))?;
    let tick_x = ymax / 60.0;
    let tick_y = xmax / 100.0;
    for x in 0..=xmax as usize {
        area.draw(&PathElement::new(
            vec![(x as f64, 0.0), (x as f64, -tick_x)],
            BLACK,
        ))
        .map_err(|e| err(e.to_string()))?;
    }
    for y in 0..=ymax as usize {
        let grid = ShapeStyle::from(&RGBColor(0xdd, 0xdd, 0xdd));
        area.draw(&PathElement::new(
            vec![(0.0, y as f64), (xmax, y as f64)],
            grid,
        ))
        .map_err(|e| err(e.to_string()))?;
        area.draw(&PathElement::new(
            vec![(0.0, y as f64), (-tick_y, y as f64)],
            BLACK,
        ))
        .map_err(|e| err(e.to_string()))?;
    }
    for (i, (c, kind, _)) in legend(points).into_iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let mut pts: Vec<(f64, f64)> = points
            .iter()
            .filter(|p| p.coalition == c && p.kind == kind)
            .map(|p| (p.openings as f64, p.excess_bits))
            .collect();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let style = ShapeStyle::from(&colour).stroke_width(if kind == "public" { 3 } else { 1 });
        area.draw(&PathElement::new(pts.clone(), style))
            .map_err(|e| err(e.to_string()))?;
        for p in pts {
            let marker = if kind == "public" { 3 } else { 5 };
            area.draw(&Circle::new(p, marker, style))
                .map_err(|e| err(e.to_string()))?;
        }
    }
    root.present().map_err(|e| err(e.to_string()))?;
    Ok(())
}
