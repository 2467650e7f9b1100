/* viz_window.c -- the interactive asc-viz window and scripted sessions.
 *
 * Users: asc_viz_main.c (asc_viz_run).  All input goes through one handler
 * (app_event), which a script feeds with synthesized SDL events, so a
 * scripted session under Xvfb exercises the same code as a person at the
 * keyboard.  Script lines (one command each, '#' starts a comment):
 *   size WxH | key NAME | text STRING | move X Y | wheel N X Y |
 *   drag X1 Y1 X2 Y2 | click X Y | screenshot FILE.png | wait MS | quit
 * Key names: f, c, e (expand / collapse all cores), s (step mode), plus, minus, left, right, up, down, pageup, pagedown, home,
 * slash, question, return, shift+return, escape, backspace, n, shift+n, q,
 * or any SDL key name. */
#include "viz_gfx.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct VizApp {
    const AscVizModel *m;
    AscVizView view;
    AscVizUi ui;
    AscVizSearch search;
    bool have_search;
    char searched[64];     /* the text `search` was run for */
    bool skip_slash;       /* drop the TEXTINPUT "/" that opened the search bar */
    bool dragging, moved;
    int drag_x, drag_y;
    bool quit, dirty;
    AscVizState state;     /* step mode: the state at the cursor */
    uint8_t *mask;         /* step mode: the rows shown (expanded) */
    SDL_Window *win;
    SDL_Renderer *ren;
    VizGfx gfx;
} VizApp;

static int run_err(AscVizError *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int run_err(AscVizError *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->offset = -1;
        err->line = err->col = 0;
    }
    return -1;
}

static void update_hover(VizApp *a)
{
    a->ui.hover = a->dragging ? -1 : asc_viz_view_hit(&a->view, a->m, a->ui.mouse_x, a->ui.mouse_y);
    bool in_plot = a->ui.mouse_x >= a->view.plot_x0 && a->ui.mouse_x < a->view.plot_x1;
    a->ui.hover_counter = a->dragging || !in_plot ? -1 : asc_viz_view_counter_at(&a->view, a->ui.mouse_y);
}

/* Select ev (-1 = none): the details panel takes the bottom of the plot
 * while something is selected; keep the selected row in sight. */
static void select_event(VizApp *a, int64_t ev)
{
    a->ui.selected = ev;
    a->ui.deps = ev >= 0 ? asc_viz_model_deps(a->m, (uint32_t)ev) : (AscVizDeps){-1, -1, -1, -1};
    asc_viz_view_reserve_bottom(&a->view, ev >= 0 ? viz_gfx_details_height(&a->gfx) : 0);
    int y0, y1;
    if (ev >= 0 && asc_viz_view_row_band(&a->view, asc_viz_model_event(a->m, (uint32_t)ev)->row, &y0, &y1) &&
        y1 > a->view.plot_y1)
        asc_viz_view_scroll(&a->view, y1 - a->view.plot_y1);
}

/* Step mode: put the cursor on ev (-1 = leave step mode), compute the state
 * of its core at its start, bring it into view. */
static void set_step(VizApp *a, int64_t ev)
{
    asc_viz_state_free(&a->state);
    a->ui.state = NULL;
    a->ui.step = ev;
    if (ev < 0) {
        asc_viz_view_reserve_bottom(&a->view, a->ui.selected >= 0 ? viz_gfx_details_height(&a->gfx) : 0);
        return;
    }
    const AscVizEvent *e = asc_viz_model_event(a->m, (uint32_t)ev);
    uint32_t grp = asc_viz_model_group_of_proc(a->m, asc_viz_model_row(a->m, e->row).proc);
    if (asc_viz_state_at(&a->state, a->m, e->t0_us, grp) == 0) a->ui.state = &a->state;
    int h = viz_gfx_step_height(&a->gfx, a->ui.state), maxh = (a->view.height - a->view.axis_h) / 2;
    asc_viz_view_reserve_bottom(&a->view, h < maxh ? h : maxh);
    double w = a->view.t1 - a->view.t0;
    if (e->t0_us < a->view.t0 || e->t0_us > a->view.t1) asc_viz_view_set_window(&a->view, e->t0_us - w / 2, e->t0_us + w / 2);
    int y0, y1;
    bool shown = asc_viz_view_row_band(&a->view, e->row, &y0, &y1) || asc_viz_view_group_band(&a->view, grp, &y0, &y1);
    if (shown && (y0 < a->view.plot_y0 || y1 > a->view.plot_y1))
        asc_viz_view_scroll(&a->view, y0 - (a->view.plot_y0 + a->view.plot_y1) / 2);
}

/* The rows the cursor walks: the expanded ones (all when none is). */
static const uint8_t *step_mask(VizApp *a)
{
    uint32_t n = asc_viz_model_row_count(a->m), shown = 0;
    if (!a->mask && !(a->mask = calloc(n + 1, 1))) return NULL;
    for (uint32_t r = 0; r < n; r++) shown += a->mask[r] = a->view.row_y[r] >= 0;
    return shown ? a->mask : NULL;
}

static void step_move(VizApp *a, int dir, int times)
{
    const uint8_t *mask = step_mask(a);
    int64_t cur = a->ui.step;
    for (int i = 0; i < times; i++) {
        int64_t nx = asc_viz_model_step(a->m, cur, dir, mask);
        if (nx < 0) break;
        cur = nx;
    }
    if (cur >= 0) set_step(a, cur);
}

/* Enter step mode at the selected event, else at the first event that
 * starts in view (on the rows the cursor walks). */
static void step_start(VizApp *a)
{
    if (a->ui.selected >= 0) {
        set_step(a, a->ui.selected);
        return;
    }
    const uint8_t *mask = step_mask(a);
    int64_t best = -1;
    for (uint32_t r = 0; r < asc_viz_model_row_count(a->m); r++) {
        if (mask && !mask[r]) continue;
        uint32_t first, last;
        asc_viz_model_window(a->m, r, a->view.t0, a->view.t1, &first, &last);
        for (uint32_t i = first; i < last; i++) {
            const AscVizEvent *e = asc_viz_model_event(a->m, i);
            if (e->t0_us < a->view.t0) continue;
            const AscVizEvent *b = best >= 0 ? asc_viz_model_event(a->m, (uint32_t)best) : NULL;
            if (!b || e->t0_us < b->t0_us) best = i;
            break;
        }
    }
    if (best < 0) best = asc_viz_model_step(a->m, -1, 1, mask);
    if (best >= 0) set_step(a, best);
}

static void clear_search(VizApp *a)
{
    if (a->have_search) asc_viz_search_free(&a->search);
    a->have_search = false;
    a->ui.matches = NULL;
    a->ui.match_cur = -1;
    a->ui.searching = false;
    a->ui.search[0] = 0;
    a->searched[0] = 0;
}

/* Jump to the next (dir > 0) or previous match; centre it if off screen. */
static void step_match(VizApp *a, int dir)
{
    if (!a->have_search || strcmp(a->searched, a->ui.search) != 0) {
        if (a->have_search) asc_viz_search_free(&a->search);
        a->have_search = asc_viz_search_run(&a->search, a->m, a->ui.search) == 0;
        snprintf(a->searched, sizeof a->searched, "%s", a->ui.search);
        a->ui.matches = a->have_search ? &a->search : NULL;
        a->ui.match_cur = -1;
    }
    if (!a->have_search || !a->search.count) return;
    int64_t k;
    if (a->ui.match_cur < 0) {
        k = asc_viz_search_step(&a->search, a->m, a->view.t0, 1);
    } else {
        k = a->ui.match_cur + dir;
        if (k >= (int64_t)a->search.count) k = 0;
        if (k < 0) k = (int64_t)a->search.count - 1;
    }
    a->ui.match_cur = k;
    uint32_t ev = a->search.items[k];
    const AscVizEvent *e = asc_viz_model_event(a->m, ev);
    select_event(a, ev);
    double w = a->view.t1 - a->view.t0;
    if (e->t0_us < a->view.t0 || e->t1_us > a->view.t1) {
        double c = (e->t0_us + e->t1_us) / 2;
        asc_viz_view_set_window(&a->view, c - w / 2, c + w / 2);
    }
    int y0, y1;
    asc_viz_view_row_band(&a->view, e->row, &y0, &y1);
    if (y0 < a->view.plot_y0 || y1 > a->view.plot_y1)
        asc_viz_view_scroll(&a->view, y0 - (a->view.plot_y0 + a->view.plot_y1) / 2);
}

static int zoom_x(const VizApp *a)
{
    int x = a->ui.mouse_x;
    return x >= a->view.plot_x0 && x < a->view.plot_x1 ? x : (a->view.plot_x0 + a->view.plot_x1) / 2;
}

static void app_key(VizApp *a, SDL_Keycode k, Uint16 mod)
{
    bool shift = mod & KMOD_SHIFT;
    int plotw = a->view.plot_x1 - a->view.plot_x0;
    if (a->ui.searching) {
        size_t n = strlen(a->ui.search);
        if (k == SDLK_ESCAPE) clear_search(a);
        else if (k == SDLK_RETURN || k == SDLK_KP_ENTER) step_match(a, shift ? -1 : 1);
        else if (k == SDLK_BACKSPACE && n > 0) a->ui.search[n - 1] = 0;
        return;
    }
    switch (k) {
    case SDLK_f:
    case SDLK_HOME: asc_viz_view_fit(&a->view, a->m); break;
    case SDLK_PLUS:
    case SDLK_EQUALS:
    case SDLK_KP_PLUS: asc_viz_view_zoom(&a->view, 1.5, zoom_x(a)); break;
    case SDLK_MINUS:
    case SDLK_KP_MINUS: asc_viz_view_zoom(&a->view, 1 / 1.5, zoom_x(a)); break;
    case SDLK_LEFT:
        if (a->ui.step >= 0) step_move(a, -1, shift ? 10 : 1);
        else asc_viz_view_pan(&a->view, shift ? plotw / 2 : plotw / 8);
        break;
    case SDLK_RIGHT:
        if (a->ui.step >= 0) step_move(a, 1, shift ? 10 : 1);
        else asc_viz_view_pan(&a->view, -(shift ? plotw / 2 : plotw / 8));
        break;
    case SDLK_s:
        if (a->ui.step >= 0) set_step(a, -1);
        else step_start(a);
        break;
    case SDLK_e: {
        bool any = false;
        for (uint32_t g = 0; g < a->view.ngroups; g++) any |= a->view.collapsed[g];
        asc_viz_view_collapse_all(&a->view, !any);
        if (a->ui.step >= 0) set_step(a, a->ui.step); /* the panel keeps its place */
        break;
    }
    case SDLK_UP: asc_viz_view_scroll(&a->view, -a->view.row_h); break;
    case SDLK_DOWN: asc_viz_view_scroll(&a->view, a->view.row_h); break;
    case SDLK_PAGEUP: asc_viz_view_scroll(&a->view, -(a->view.plot_y1 - a->view.plot_y0) * 3 / 4); break;
    case SDLK_PAGEDOWN: asc_viz_view_scroll(&a->view, (a->view.plot_y1 - a->view.plot_y0) * 3 / 4); break;
    case SDLK_SLASH:
        if (shift) { a->ui.help = !a->ui.help; break; }
        clear_search(a);
        a->ui.searching = true;
        a->skip_slash = true;
        break;
    case SDLK_QUESTION:
    case SDLK_F1:
    case SDLK_h: a->ui.help = !a->ui.help; break;
    case SDLK_n:
        if (a->have_search) step_match(a, shift ? -1 : 1);
        break;
    case SDLK_RETURN:
        if (a->have_search) step_match(a, shift ? -1 : 1);
        break;
    case SDLK_ESCAPE:
        if (a->ui.help) a->ui.help = false;
        else if (a->have_search) clear_search(a);
        else if (a->ui.step >= 0) set_step(a, -1);
        else select_event(a, -1);
        break;
    case SDLK_c: asc_viz_view_show_counters(&a->view, !a->view.show_counters); break;
    case SDLK_q: a->quit = true; break;
    default: return;
    }
}

static void app_event(VizApp *a, const SDL_Event *e)
{
    switch (e->type) {
    case SDL_QUIT: a->quit = true; return;
    case SDL_WINDOWEVENT:
        if (e->window.event == SDL_WINDOWEVENT_SIZE_CHANGED || e->window.event == SDL_WINDOWEVENT_RESIZED) {
            int w, h;
            SDL_GetRendererOutputSize(a->ren, &w, &h);
            asc_viz_view_resize(&a->view, w, h);
        }
        break;
    case SDL_KEYDOWN:
        app_key(a, e->key.keysym.sym, e->key.keysym.mod);
        if (e->key.keysym.sym != SDLK_SLASH) a->skip_slash = false;
        break;
    case SDL_TEXTINPUT:
        if (!a->ui.searching) break;
        if (a->skip_slash && !strcmp(e->text.text, "/")) { a->skip_slash = false; break; }
        a->skip_slash = false;
        {
            size_t n = strlen(a->ui.search), k = strlen(e->text.text);
            if (n + k < sizeof a->ui.search) memcpy(a->ui.search + n, e->text.text, k + 1);
        }
        break;
    case SDL_MOUSEMOTION:
        if (a->dragging) {
            int dx = e->motion.x - a->ui.mouse_x, dy = e->motion.y - a->ui.mouse_y;
            asc_viz_view_pan(&a->view, dx);
            asc_viz_view_scroll(&a->view, -dy);
            if (abs(e->motion.x - a->drag_x) > 3 || abs(e->motion.y - a->drag_y) > 3) a->moved = true;
        }
        a->ui.mouse_x = e->motion.x;
        a->ui.mouse_y = e->motion.y;
        break;
    case SDL_MOUSEBUTTONDOWN:
        a->ui.mouse_x = e->button.x;
        a->ui.mouse_y = e->button.y;
        if (e->button.button == SDL_BUTTON_LEFT) {
            a->dragging = true;
            a->moved = false;
            a->drag_x = e->button.x;
            a->drag_y = e->button.y;
        }
        break;
    case SDL_MOUSEBUTTONUP:
        a->ui.mouse_x = e->button.x;
        a->ui.mouse_y = e->button.y;
        if (e->button.button == SDL_BUTTON_LEFT && a->dragging) {
            a->dragging = false;
            if (!a->moved) {
                /* a core's name or summary row toggles it; else select (in
                 * step mode the cursor moves to the clicked event) */
                int grp = e->button.x < a->view.plot_x1 ? asc_viz_view_group_at(&a->view, e->button.y) : -1;
                if (grp >= 0) {
                    asc_viz_view_collapse(&a->view, (uint32_t)grp, -1);
                    if (a->ui.step >= 0) set_step(a, a->ui.step);
                } else {
                    int64_t hit = asc_viz_view_hit(&a->view, a->m, e->button.x, e->button.y);
                    if (a->ui.step >= 0 && hit >= 0) set_step(a, hit);
                    else if (a->ui.step < 0) select_event(a, hit);
                }
            }
        }
        break;
    case SDL_MOUSEWHEEL: {
        int dy = e->wheel.y, dx = e->wheel.x;
        if (e->wheel.direction == SDL_MOUSEWHEEL_FLIPPED) { dy = -dy; dx = -dx; }
        if (SDL_GetModState() & (KMOD_SHIFT | KMOD_CTRL)) {
            asc_viz_view_scroll(&a->view, -dy * a->view.row_h * 2);
        } else {
            if (dy) asc_viz_view_zoom(&a->view, pow(1.25, dy), zoom_x(a));
            if (dx) asc_viz_view_pan(&a->view, -dx * 40);
        }
        break;
    }
    default: return;
    }
    update_hover(a);
    a->dirty = true;
}

static void render(VizApp *a)
{
    viz_gfx_draw(&a->gfx, a->m, &a->view, &a->ui);
}

static int screenshot(VizApp *a, const char *path, AscVizError *err)
{
    int w = a->view.width, h = a->view.height;
    uint8_t *px = malloc((size_t)w * h * 4);
    if (!px) return run_err(err, "out of memory taking a screenshot");
    render(a);
    if (SDL_RenderReadPixels(a->ren, NULL, SDL_PIXELFORMAT_ABGR8888, px, w * 4) != 0) {
        free(px);
        return run_err(err, "cannot read the window's pixels: %s", SDL_GetError());
    }
    SDL_RenderPresent(a->ren);
    int rc = asc_viz_png_write(path, px, w, h, w * 4, err);
    free(px);
    return rc;
}

/* ---- scripts ------------------------------------------------------------ */

static bool script_key(const char *name, SDL_Keycode *k, Uint16 *mod)
{
    static const struct { const char *name; SDL_Keycode key; Uint16 mod; } keys[] = {
        {"plus", SDLK_PLUS, 0},         {"minus", SDLK_MINUS, 0},     {"left", SDLK_LEFT, 0},
        {"right", SDLK_RIGHT, 0},       {"up", SDLK_UP, 0},           {"down", SDLK_DOWN, 0},
        {"pageup", SDLK_PAGEUP, 0},     {"pagedown", SDLK_PAGEDOWN, 0}, {"home", SDLK_HOME, 0},
        {"slash", SDLK_SLASH, 0},       {"question", SDLK_SLASH, KMOD_LSHIFT},
        {"return", SDLK_RETURN, 0},     {"enter", SDLK_RETURN, 0},    {"shift+return", SDLK_RETURN, KMOD_LSHIFT},
        {"escape", SDLK_ESCAPE, 0},     {"esc", SDLK_ESCAPE, 0},      {"backspace", SDLK_BACKSPACE, 0},
        {"shift+n", SDLK_n, KMOD_LSHIFT}, {"shift+left", SDLK_LEFT, KMOD_LSHIFT},
        {"shift+right", SDLK_RIGHT, KMOD_LSHIFT},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (!strcmp(name, keys[i].name)) { *k = keys[i].key; *mod = keys[i].mod; return true; }
    if (strlen(name) == 1 && isalnum((unsigned char)name[0])) {
        *k = (SDL_Keycode)tolower((unsigned char)name[0]);
        *mod = 0;
        return true;
    }
    *k = SDL_GetKeyFromName(name);
    *mod = 0;
    return *k != SDLK_UNKNOWN;
}

static void pump(VizApp *a)
{
    SDL_Event ev;
    while (SDL_PollEvent(&ev)) app_event(a, &ev);
}

static void send_motion(VizApp *a, int x, int y)
{
    SDL_Event ev = {0};
    ev.type = SDL_MOUSEMOTION;
    ev.motion.x = x;
    ev.motion.y = y;
    app_event(a, &ev);
}

static void send_button(VizApp *a, bool down, int x, int y)
{
    SDL_Event ev = {0};
    ev.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
    ev.button.button = SDL_BUTTON_LEFT;
    ev.button.x = x;
    ev.button.y = y;
    app_event(a, &ev);
}

/* A script error at line lineno, column of the command: printed by the CLI
 * as SCRIPT:LINE:COL: error: MSG. */
static int script_err(AscVizError *err, const char *line, int lineno, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int script_err(AscVizError *err, const char *line, int lineno, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
        err->offset = -1;
        err->line = (uint32_t)lineno;
        err->col = (uint32_t)(strspn(line, " \t") + 1);
    }
    return -1;
}

/* Run one script line; returns -1 on error (err filled), 0 otherwise. */
static int script_line(VizApp *a, char *line, const char *file, int lineno, AscVizError *err)
{
    char *hash = strchr(line, '#');
    if (hash) *hash = 0;
    char cmd[32] = "", arg[512] = "";
    int x1, y1, x2, y2, n;
    if (sscanf(line, "%31s", cmd) != 1) return 0;
    (void)file;
    SDL_Event ev = {0};
    if (!strcmp(cmd, "size")) {
        if (sscanf(line, "%*s %dx%d", &x1, &y1) != 2 || x1 < 200 || y1 < 150 || x1 > 8192 || y1 > 8192)
            return script_err(err, line, lineno, "'size WxH' needs W >= 200 and H >= 150");
        SDL_SetWindowSize(a->win, x1, y1);
        pump(a);
        int w, h;
        SDL_GetRendererOutputSize(a->ren, &w, &h);
        asc_viz_view_resize(&a->view, w, h);
    } else if (!strcmp(cmd, "key")) {
        SDL_Keycode k;
        Uint16 mod;
        if (sscanf(line, "%*s %31s", arg) != 1 || !script_key(arg, &k, &mod))
            return script_err(err, line, lineno, "unknown key '%s' (see docs/viewer.md)", arg);
        ev.type = SDL_KEYDOWN;
        ev.key.keysym.sym = k;
        ev.key.keysym.mod = mod;
        app_event(a, &ev);
    } else if (!strcmp(cmd, "text")) {
        const char *t = line + strlen("text");
        while (*t == ' ') t++;
        ev.type = SDL_TEXTINPUT;
        size_t len = strcspn(t, "\r\n");
        if (len >= sizeof ev.text.text) len = sizeof ev.text.text - 1;
        memcpy(ev.text.text, t, len);
        ev.text.text[len] = 0;
        app_event(a, &ev);
    } else if (!strcmp(cmd, "move")) {
        if (sscanf(line, "%*s %d %d", &x1, &y1) != 2) return script_err(err, line, lineno, "'move X Y' needs two integers");
        send_motion(a, x1, y1);
    } else if (!strcmp(cmd, "wheel")) {
        if (sscanf(line, "%*s %d %d %d", &n, &x1, &y1) != 3)
            return script_err(err, line, lineno, "'wheel N X Y' needs three integers");
        send_motion(a, x1, y1);
        ev.type = SDL_MOUSEWHEEL;
        ev.wheel.y = n;
        ev.wheel.direction = SDL_MOUSEWHEEL_NORMAL;
        app_event(a, &ev);
    } else if (!strcmp(cmd, "drag")) {
        if (sscanf(line, "%*s %d %d %d %d", &x1, &y1, &x2, &y2) != 4)
            return script_err(err, line, lineno, "'drag X1 Y1 X2 Y2' needs four integers");
        send_motion(a, x1, y1);
        send_button(a, true, x1, y1);
        for (int s = 1; s <= 8; s++) send_motion(a, x1 + (x2 - x1) * s / 8, y1 + (y2 - y1) * s / 8);
        send_button(a, false, x2, y2);
    } else if (!strcmp(cmd, "click")) {
        if (sscanf(line, "%*s %d %d", &x1, &y1) != 2) return script_err(err, line, lineno, "'click X Y' needs two integers");
        send_motion(a, x1, y1);
        send_button(a, true, x1, y1);
        send_button(a, false, x1, y1);
    } else if (!strcmp(cmd, "screenshot")) {
        if (sscanf(line, "%*s %511s", arg) != 1) return script_err(err, line, lineno, "'screenshot FILE.png' needs a file");
        if (screenshot(a, arg, err)) return -1;
    } else if (!strcmp(cmd, "wait")) {
        if (sscanf(line, "%*s %d", &n) != 1 || n < 0 || n > 60000)
            return script_err(err, line, lineno, "'wait MS' needs 0 <= MS <= 60000");
        Uint32 end = SDL_GetTicks() + (Uint32)n;
        do {
            pump(a);
            SDL_Delay(5);
        } while (!SDL_TICKS_PASSED(SDL_GetTicks(), end));
    } else if (!strcmp(cmd, "quit")) {
        a->quit = true;
    } else {
        return script_err(err, line, lineno,
                          "unknown command '%s' (size, key, text, move, wheel, drag, click, screenshot, wait, quit)", cmd);
    }
    return 0;
}

/* ---- the window --------------------------------------------------------- */

int asc_viz_run(const AscVizModel *m, const AscVizRunDesc *desc, AscVizError *err)
{
    AscVizRunDesc d = desc ? *desc : (AscVizRunDesc){0};
    int w = d.width > 0 ? d.width : 1400, h = d.height > 0 ? d.height : 800;
    FILE *script = NULL;
    if (d.script && !(script = fopen(d.script, "r")))
        return run_err(err, "cannot open the script '%s'", d.script);
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
        if (script) fclose(script);
        return run_err(err, "cannot open a window: %s (use --png for headless rendering)", SDL_GetError());
    }
    /* With no display SDL falls back to its offscreen or dummy driver: an
     * interactive viewer would then run forever in a window nobody sees.
     * A script may still drive such a window (its screenshots are real). */
    const char *drv = SDL_GetCurrentVideoDriver();
    if (!script && drv && (!strcmp(drv, "offscreen") || !strcmp(drv, "dummy"))) {
        SDL_Quit();
        return run_err(err, "cannot open a window: no display (SDL video driver '%s'); set DISPLAY, or use "
                            "--png for headless rendering", drv);
    }
    VizApp *a = calloc(1, sizeof *a);
    int rc = -1;
    if (!a) { run_err(err, "out of memory"); goto out; }
    a->m = m;
    asc_viz_ui_init(&a->ui);
    char title[300];
    snprintf(title, sizeof title, "asc-viz %s", d.title ? d.title : "");
    a->ui.title = d.title;
    a->win = SDL_CreateWindow(title, SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
    if (!a->win) { run_err(err, "cannot open a window: %s", SDL_GetError()); goto out; }
    a->ren = SDL_CreateRenderer(a->win, -1, script ? SDL_RENDERER_SOFTWARE : SDL_RENDERER_PRESENTVSYNC);
    if (!a->ren) a->ren = SDL_CreateRenderer(a->win, -1, SDL_RENDERER_SOFTWARE);
    if (!a->ren) { run_err(err, "cannot create a renderer: %s", SDL_GetError()); goto out; }
    if (viz_gfx_init(&a->gfx, a->ren, d.font_path, err)) goto out;
    SDL_GetRendererOutputSize(a->ren, &w, &h);
    AscVizViewDesc vd = {.width = w, .height = h};
    if (asc_viz_view_init(&a->view, m, &vd)) { run_err(err, "out of memory"); goto out; }
    SDL_StartTextInput();
    a->dirty = true;
    int lineno = 0;
    char line[1024];
    while (!a->quit) {
        if (a->dirty) {
            render(a);
            SDL_RenderPresent(a->ren);
            a->dirty = false;
        }
        if (script) {
            pump(a);
            if (!fgets(line, sizeof line, script)) break; /* end of script = quit */
            lineno++;
            if (script_line(a, line, d.script, lineno, err)) goto out;
            continue;
        }
        SDL_Event ev;
        if (SDL_WaitEventTimeout(&ev, 100)) {
            app_event(a, &ev);
            while (SDL_PollEvent(&ev)) app_event(a, &ev);
        }
    }
    rc = 0;
out:
    if (script) fclose(script);
    if (a) {
        clear_search(a);
        asc_viz_state_free(&a->state);
        free(a->mask);
        asc_viz_view_free(&a->view);
        viz_gfx_free(&a->gfx);
        if (a->ren) SDL_DestroyRenderer(a->ren);
        if (a->win) SDL_DestroyWindow(a->win);
        free(a);
    }
    SDL_Quit();
    return rc;
}
