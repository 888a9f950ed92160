package report

// AxisTop exposes axisTop to the tests.
var AxisTop = axisTop
