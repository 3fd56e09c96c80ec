//! Stage 6: the probed launches' fault latency drawn as SVG files (`report --probe-svg
//! DIR`; plotters, SVG backend only). One file per cell, two panels (without and with
//! pretouch); in each, one step line per label overlays the labels' histograms: the
//! share of the label's faults in each eighth-octave bucket, on a log latency axis, so
//! labels with different launch counts compare. Computes nothing: the shares are
//! analyze's (`LatencySummary::bucket_shares_pct`).

use plotters::prelude::*;

use crate::features::probe::analyze::{CellProbes, ProbeAnalysis};
use crate::features::probe::render::cell_title;
use crate::render::common::file_part;
use crate::render::plot::COLORS;
use crate::store::CellKey;

#[derive(Debug, thiserror::Error)]
#[error("cannot draw the fault latency: {0}")]
pub struct ProbePlotError(String);

fn err(e: impl std::fmt::Display) -> ProbePlotError {
    ProbePlotError(e.to_string())
}

const PANEL: (u32, u32) = (560, 380);
const HEADER: u32 = 70;

/// The file a cell's SVG is written to, inside the folder.
pub fn file_name(cell: &CellKey) -> String {
    format!("fault-latency-{}.svg", file_part(&cell_title(cell)))
}

/// One cell's histograms as SVG text: its `--probe-svg` file, and its picture in the
/// HTML report.
pub fn svg(a: &ProbeAnalysis, cell: &CellKey) -> Result<String, ProbePlotError> {
    let mut out = String::new();
    draw_on(
        a,
        cell,
        &SVGBackend::with_string(&mut out, (PANEL.0 * 2, PANEL.1 + HEADER)).into_drawing_area(),
    )?;
    Ok(out)
}

fn draw_on<DB: DrawingBackend>(
    a: &ProbeAnalysis,
    cell: &CellKey,
    root: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), ProbePlotError>
where
    DB::ErrorType: 'static,
{
    root.fill(&WHITE).map_err(err)?;
    let (top, body) = root.split_vertically(HEADER);
    top.draw(&Text::new(
        format!(
            "{}: page fault latency, exec to main (run --probe): share of each label's faults per eighth-octave bucket",
            cell_title(cell)
        ),
        (10, 10),
        ("sans-serif", 15),
    ))
    .map_err(err)?;
    // The legend: each label in its colour, in the report's order.
    let mut x = 10;
    for (i, label) in a.labels.iter().enumerate() {
        let style = ("sans-serif", 14)
            .into_font()
            .color(&COLORS[i % COLORS.len()]);
        top.draw(&Text::new(format!("— {label}"), (x, 38), style))
            .map_err(err)?;
        x += 30 + 8 * label.chars().count() as i32;
    }
    let panels = body.split_evenly((1, 2));
    for (pretouch, area) in [false, true].into_iter().zip(panels.iter()) {
        let cells: Vec<&CellProbes> = a
            .cells
            .iter()
            .filter(|c| &c.cell == cell && c.pretouch == pretouch && c.latency.is_some())
            .collect();
        panel(a, &cells, pretouch, area)?;
    }
    root.present().map_err(err)?;
    Ok(())
}

fn panel<DB: DrawingBackend>(
    a: &ProbeAnalysis,
    cells: &[&CellProbes],
    pretouch: bool,
    area: &DrawingArea<DB, plotters::coord::Shift>,
) -> Result<(), ProbePlotError>
where
    DB::ErrorType: 'static,
{
    // Bucket bounds in us, and each label's share of its faults per bucket, in %
    // (analyze's).
    let series: Vec<(usize, Vec<(f64, f64)>)> = cells
        .iter()
        .filter_map(|c| {
            let l = c.latency.as_ref()?;
            let mut points: Vec<(f64, f64)> = Vec::new();
            let mut last_high = None;
            for (b, pct) in l.bucket_shares_pct() {
                let (low, high) = (
                    b.low_ns.max(1) as f64 / 1000.0,
                    b.high_ns.max(2) as f64 / 1000.0,
                );
                // Empty buckets are not stored: the line drops to zero across them.
                if let Some(prev) = last_high.filter(|p| *p < low) {
                    points.push((prev, 0.0));
                    points.push((low, 0.0));
                }
                points.push((low, pct));
                points.push((high, pct));
                last_high = Some(high);
            }
            // Down to zero at both ends, so each step line reads as a histogram.
            let first = points.first()?.0;
            let last = points.last()?.0;
            points.insert(0, (first, 0.0));
            points.push((last, 0.0));
            let i = a.labels.iter().position(|x| *x == c.label).unwrap_or(0);
            Some((i, points))
        })
        .collect();
    let (lo, hi, top) = series
        .iter()
        .flat_map(|(_, p)| p)
        .fold((f64::INFINITY, 0.0f64, 0.0f64), |(lo, hi, top), (x, y)| {
            (lo.min(*x), hi.max(*x), top.max(*y))
        });
    let (lo, hi) = if lo.is_finite() && hi > lo {
        (lo, hi)
    } else {
        (0.1, 10.0)
    };
    let caption = if pretouch {
        "with -XX:+AlwaysPreTouch"
    } else {
        "without (-XX:-AlwaysPreTouch)"
    };
    let mut chart = ChartBuilder::on(area)
        .caption(caption, ("sans-serif", 14))
        .margin(10)
        .x_label_area_size(34)
        .y_label_area_size(48)
        .build_cartesian_2d((lo * 0.9..hi * 1.1).log_scale(), 0.0..(top * 1.1).max(1.0))
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc("fault latency, us (log)")
        .y_desc("% of faults")
        .x_label_formatter(&|v| crate::render::table::us(v * 1000.0))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .light_line_style(WHITE)
        .draw()
        .map_err(err)?;
    if series.is_empty() {
        chart
            .draw_series(std::iter::once(Text::new(
                "no probed launch",
                (lo * 1.5, 0.5),
                ("sans-serif", 14),
            )))
            .map_err(err)?;
    }
    for (i, points) in series {
        chart
            .draw_series(LineSeries::new(
                points,
                COLORS[i % COLORS.len()].stroke_width(2),
            ))
            .map_err(err)?;
    }
    Ok(())
}
