% Can this GNU Octave print a figure without a display, as solve_sudoku.m does for sudoku_figure?
% `make solvers` and tests/formats/test_matlab.py run it (headless: --no-window-system) with
% probe_png set to the file to write:
%   octave-cli --no-window-system --eval "probe_png = '/tmp/p.png'; run('tests/formats/octave_figure_probe.m')"
% It prints one line: "figure probe: printed with TOOLKIT" or "figure probe: cannot print: REASON"
% (without gnuplot: "no graphics toolkits are available!"); the caller also checks the PNG.
try
  warning('off', 'all');   % the gnuplot toolkit's "discouraged" notice is not a failure
  probe_figure = figure('Visible', 'off');
  plot(1:3);
  print(probe_figure, probe_png, '-dpng');
  close(probe_figure);
  printf('figure probe: printed with %s\n', graphics_toolkit());
catch probe_error
  printf('figure probe: cannot print: %s\n', probe_error.message);
end
