// Sixty-Six tables in the browser: plain ES modules, no build step. The play table
// (table.js) and the viewer (viewer.js) keep their own state; this file only joins the tabs.
import { $, showTab } from "./common.js";
import { initTable } from "./table.js";
import { initViewer, openViewer, showViewer } from "./viewer.js";

$("tab-play").addEventListener("click", () => showTab("play"));
$("tab-viewer").addEventListener("click", showViewer);
initViewer();
initTable(openViewer);
