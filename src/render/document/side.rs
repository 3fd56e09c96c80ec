//! Stage 6, rendering: what `pretouch report` writes beside the report, as bytes. Each
//! feature's section draws its own files from its part of the document
//! (`render::section::Section::side_files`), such as the flame graphs or the probed
//! launches' rows, and the plot (`--plot FILE`) is drawn here. Each comes with the line
//! the command prints once its files are written; the command only writes them.

use crate::analyze::document::Document;
use crate::render::plot;
use crate::render::section::{SideError, SideOutput, SideRequest};

use super::SECTIONS;

/// The outputs `request` asks for beside the report of `doc`, in the order they are
/// written: each section's, in the order of the sections, then the plot, with the notes
/// in their place. The list ends at the first output that cannot be made, so that those
/// before it are still written.
pub fn side_files(doc: &Document, request: &SideRequest) -> Vec<Result<SideOutput, SideError>> {
    let launches = doc.launches.as_ref();
    let mut out = Vec::new();
    let sections = SECTIONS.iter().map(|s| s.side_files(launches, request));
    for made in sections.chain([plot_picture(doc, request).into_iter().collect()]) {
        for made in made {
            let failed = made.is_err();
            out.push(made);
            if failed {
                return out;
            }
        }
    }
    out
}

/// What the plot's step makes: nothing when it is not asked for (or the document holds
/// no launches, as under `report --calibrate`).
type Step = Option<Result<SideOutput, SideError>>;

/// `--plot FILE`: every round's cost per cell and label.
fn plot_picture(doc: &Document, request: &SideRequest) -> Step {
    let path = request.plot.as_ref()?;
    let launches = doc.launches.as_ref()?;
    let writing = format!("drawing `{}`", path.display());
    Some(match plot::svg(&launches.comparison) {
        Ok(svg) => Ok(SideOutput {
            writing,
            ..SideOutput::file(path, svg.into_bytes(), format!("plot: {}", path.display()))
        }),
        Err(e) => Err(SideError::drawing(writing, e)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyze::Options;
    use crate::analyze::document;
    use crate::features::probe::report_options::ProbeReportArgs;
    use crate::features::profile::report_options::ProfileReportArgs;
    use crate::features::report_options::ReportOptions;
    use crate::fixtures::{file, g1_and_parallel, host, rounds};
    use crate::render::common::Format;
    use crate::store::Results;
    use std::path::PathBuf;

    /// Two labels of two cells each, without profile or probe records.
    fn doc(options: &Options) -> Document {
        let base = rounds(50.0, 420.0, false);
        let new = rounds(50.0, 380.0, false);
        let files = vec![
            file(
                "base",
                "2026-11-30T08:00:00Z",
                host("vm"),
                &g1_and_parallel(&base, &base),
            ),
            file(
                "new",
                "2026-11-30T08:10:00Z",
                host("vm"),
                &g1_and_parallel(&new, &base),
            ),
        ];
        let results = Results {
            files,
            ..Default::default()
        };
        document::build(results, options).unwrap()
    }

    fn request(format: Format) -> SideRequest {
        SideRequest {
            format,
            plot: None,
            features: ReportOptions::default(),
        }
    }

    #[test]
    fn nothing_asked_nothing_made() {
        assert!(side_files(&doc(&Options::default()), &request(Format::Text)).is_empty());
    }

    #[test]
    fn outputs_come_in_order_with_their_notes() {
        let options = Options {
            features: ReportOptions::after_run(true),
            ..Options::default()
        };
        let made = side_files(
            &doc(&options),
            &SideRequest {
                plot: Some("plot.svg".into()),
                features: ReportOptions {
                    profile: ProfileReportArgs {
                        profile: true,
                        profile_csv: Some("p.csv".into()),
                        ..ProfileReportArgs::default()
                    },
                    ..ReportOptions::after_run(true)
                },
                ..request(Format::Csv)
            },
        );
        let made: Vec<SideOutput> = made.into_iter().map(Result::unwrap).collect();
        let notes: Vec<&str> = made.iter().map(|m| m.note.as_str()).collect();
        assert_eq!(
            notes,
            [
                "profile: no profiled launches in these results (run with `pretouch run --profile`): p.csv holds the header only",
                "plot: plot.svg",
            ]
        );
        assert_eq!(made[0].files[0].path, PathBuf::from("p.csv"));
        assert!(made[0].files[0].bytes.starts_with(b"section,label,"));
        assert_eq!(made[1].writing, "drawing `plot.svg`");
        assert!(made[1].files[0].bytes.starts_with(b"<svg"));
        // Without --profile-csv, the printed CSV says where the profile's rows go.
        let made = side_files(
            &doc(&options),
            &SideRequest {
                features: ReportOptions::after_run(true),
                ..request(Format::Csv)
            },
        );
        assert_eq!(made.len(), 1);
        let note = made[0].as_ref().unwrap();
        assert!(note.files.is_empty() && note.note.contains("--profile-csv FILE"));
    }

    #[test]
    fn the_first_output_that_cannot_be_made_ends_the_list() {
        let made = side_files(
            &doc(&Options::default()),
            &SideRequest {
                plot: Some("plot.svg".into()),
                features: ReportOptions {
                    probe: ProbeReportArgs {
                        probe_csv: Some("probes.csv".into()),
                        probe_svg: Some("svg".into()),
                    },
                    ..ReportOptions::default()
                },
                ..request(Format::Text)
            },
        );
        assert_eq!(made.len(), 1);
        let e = made.into_iter().next().unwrap().unwrap_err();
        assert!(e.is_bad_input());
        assert_eq!(
            e.to_string(),
            "--probe-csv: no probed launches in these results\n  fix: record some with `pretouch run --probe`"
        );
        // Without a profile analyzed, --flamegraph draws nothing and says nothing, as under
        // `report --calibrate`.
        let made = side_files(
            &doc(&Options::default()),
            &SideRequest {
                features: ReportOptions {
                    profile: ProfileReportArgs {
                        flamegraph: Some("fg".into()),
                        ..ProfileReportArgs::default()
                    },
                    ..ReportOptions::default()
                },
                ..request(Format::Text)
            },
        );
        assert!(made.is_empty());
    }
}
