//! Stage 6, rendering: the `pretouch jdks` table, on the one table model.

use crate::machine::discover::Installed;
use crate::render::table::{self, Table};

/// One row per JDK found, by feature release: its feature release, version, vendor,
/// home and where it was found.
pub fn table(installed: &[Installed]) -> String {
    let rows = crate::machine::discover::by_feature(installed)
        .into_iter()
        .map(|j| {
            vec![
                j.feature.map_or_else(|| "?".to_owned(), |f| f.to_string()),
                j.version.clone().unwrap_or_else(|| "unknown".to_owned()),
                j.vendor.clone().unwrap_or_else(|| "unknown".to_owned()),
                j.home.display().to_string(),
                j.found_as.join(", "),
            ]
        });
    let columns = table::columns(&["feature", "version", "vendor", "home", "found as"], 5);
    Table::new(columns).with_rows(rows).text(0)
}
