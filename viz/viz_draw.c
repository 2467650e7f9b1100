/* viz_draw.c -- the SDL half of asc-viz: drawing, headless PNGs, the window.
 *
 * Users: asc_viz_main.c, bench/viz_bench.c.  Everything here reads the
 * headless model (viz_model.c) through its public API and only draws; the
 * one draw function (draw_frame) serves the window, the offscreen surface
 * and scripted screenshots, so all three show the same picture.
 *
 * Drawing cost is bounded by pixels, not events: a row whose visible window
 * holds more than two events per pixel column is drawn from the model's
 * level-of-detail query (busy fraction per column), else event by event.
 * Text uses a glyph atlas built once from DejaVu Sans Mono (SDL2_ttf). */
#include "viz_gfx.h"

#include <SDL.h>
#include <SDL_ttf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DEFAULT_FONT "/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf"
#define NGLYPH 97 /* ASCII 32..126, the micro sign and the ellipsis */


static int set_err(AscVizError *err, const char *fmt, const char *a)
{
    if (err) {
        snprintf(err->msg, sizeof err->msg, fmt, a);
        err->offset = -1;
        err->line = err->col = 0;
    }
    return -1;
}

void asc_viz_ui_init(AscVizUi *ui)
{
    memset(ui, 0, sizeof *ui);
    ui->hover = ui->selected = ui->hover_counter = -1;
    ui->deps = (AscVizDeps){-1, -1, -1, -1};
    ui->match_cur = -1;
    ui->mouse_x = ui->mouse_y = -1;
    ui->step = -1;
}

/* ---- text --------------------------------------------------------------- */

int viz_gfx_init(VizGfx *g, SDL_Renderer *ren, const char *font_path, AscVizError *err)
{
    memset(g, 0, sizeof *g);
    g->ren = ren;
    if (!font_path) font_path = getenv("ASC_VIZ_FONT");
    if (!font_path || !*font_path) font_path = DEFAULT_FONT;
    if (TTF_Init() != 0) return set_err(err, "cannot initialise SDL2_ttf: %s", TTF_GetError());
    TTF_Font *font = TTF_OpenFont(font_path, 12);
    if (!font) {
        set_err(err, "cannot open the font '%s' (install fonts-dejavu-core, or set ASC_VIZ_FONT to a .ttf file)",
                font_path);
        TTF_Quit();
        return -1;
    }
    TTF_SetFontHinting(font, TTF_HINTING_NORMAL);
    int adv = 7;
    TTF_GlyphMetrics32(font, 'M', NULL, NULL, NULL, NULL, &adv);
    g->cw = adv > 0 ? adv : 7;
    g->ch = TTF_FontHeight(font);
    g->cellw = g->cw + 2;
    g->cellh = g->ch + 3;
    SDL_Surface *atlas = SDL_CreateRGBSurfaceWithFormat(0, g->cellw * NGLYPH, g->cellh, 32, SDL_PIXELFORMAT_ARGB8888);
    if (!atlas) {
        TTF_CloseFont(font);
        TTF_Quit();
        return set_err(err, "cannot create the glyph atlas: %s", SDL_GetError());
    }
    SDL_FillRect(atlas, NULL, SDL_MapRGBA(atlas->format, 255, 255, 255, 0));
    SDL_Color white = {255, 255, 255, 255};
    for (int i = 0; i < NGLYPH; i++) {
        uint32_t cp = i < 95 ? (uint32_t)(32 + i) : i == 95 ? 0xB5 : 0x2026;
        SDL_Surface *gs = TTF_RenderGlyph32_Blended(font, cp, white);
        if (!gs) continue;
        SDL_SetSurfaceBlendMode(gs, SDL_BLENDMODE_NONE);
        SDL_Rect src = {0, 0, gs->w < g->cellw ? gs->w : g->cellw, gs->h < g->cellh ? gs->h : g->cellh};
        SDL_Rect dst = {i * g->cellw, 0, src.w, src.h};
        SDL_BlitSurface(gs, &src, atlas, &dst);
        SDL_FreeSurface(gs);
    }
    TTF_CloseFont(font);
    g->atlas = SDL_CreateTextureFromSurface(ren, atlas);
    SDL_FreeSurface(atlas);
    TTF_Quit();
    if (!g->atlas) return set_err(err, "cannot create the glyph texture: %s", SDL_GetError());
    SDL_SetTextureBlendMode(g->atlas, SDL_BLENDMODE_BLEND);
    return 0;
}

void viz_gfx_free(VizGfx *g)
{
    if (g->atlas) SDL_DestroyTexture(g->atlas);
    free(g->busy);
    free(g->stall);
    free(g->last);
    for (int i = 0; i < LOD_LEVELS + 4; i++) free(g->rects[i]);
    memset(g, 0, sizeof *g);
}

static bool gfx_reserve(VizGfx *g, int n)
{
    if (n <= g->cap) return true;
    float *b = realloc(g->busy, (size_t)n * sizeof *b);
    if (!b) return false;
    g->busy = b;
    float *s = realloc(g->stall, (size_t)n * sizeof *s);
    if (!s) return false;
    g->stall = s;
    float *l = realloc(g->last, (size_t)n * sizeof *l);
    if (!l) return false;
    g->last = l;
    for (int i = 0; i < LOD_LEVELS + 4; i++) {
        SDL_Rect *r = realloc(g->rects[i], (size_t)n * sizeof *r);
        if (!r) return false;
        g->rects[i] = r;
    }
    g->cap = n;
    return true;
}

static void color(VizGfx *g, uint32_t rgb)
{
    SDL_SetRenderDrawColor(g->ren, (Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255);
}

static void fill(VizGfx *g, int x, int y, int w, int h, uint32_t rgb)
{
    if (w <= 0 || h <= 0) return;
    color(g, rgb);
    SDL_Rect r = {x, y, w, h};
    SDL_RenderFillRect(g->ren, &r);
}

static void frame_rect(VizGfx *g, int x, int y, int w, int h, uint32_t rgb)
{
    color(g, rgb);
    SDL_Rect r = {x, y, w, h};
    SDL_RenderDrawRect(g->ren, &r);
}

static uint32_t blend(uint32_t a, uint32_t b, double t)
{
    int r = (int)lround(((a >> 16) & 255) * (1 - t) + ((b >> 16) & 255) * t);
    int gg = (int)lround(((a >> 8) & 255) * (1 - t) + ((b >> 8) & 255) * t);
    int bb = (int)lround((a & 255) * (1 - t) + (b & 255) * t);
    return (uint32_t)(r << 16 | gg << 8 | bb);
}

static bool is_dark(uint32_t rgb)
{
    return 0.299 * ((rgb >> 16) & 255) + 0.587 * ((rgb >> 8) & 255) + 0.114 * (rgb & 255) < 110;
}

/* Draw UTF-8 text (ASCII and the micro sign; others print as '?'), at most
 * max_chars glyphs (< 0 = all).  Returns the width drawn. */
static int text(VizGfx *g, int x, int y, const char *s, uint32_t rgb, int max_chars)
{
    SDL_SetTextureColorMod(g->atlas, (Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb);
    int n = 0, x0 = x;
    for (const unsigned char *p = (const unsigned char *)s; *p && (max_chars < 0 || n < max_chars); n++) {
        int idx;
        if (*p < 0x80) {
            idx = *p >= 32 && *p < 127 ? *p - 32 : '?' - 32;
            p++;
        } else {
            uint32_t cp = 0;
            int len = *p >= 0xF0 ? 4 : *p >= 0xE0 ? 3 : *p >= 0xC0 ? 2 : 1;
            cp = *p & (len == 2 ? 0x1F : len == 3 ? 0x0F : 0x07);
            for (int k = 1; k < len && p[k]; k++) cp = cp << 6 | (p[k] & 0x3F);
            for (int k = 0; k < len && *p; k++) p++;
            idx = cp == 0xB5 || cp == 0x3BC ? 95 : cp == 0x2026 ? 96 : '?' - 32;
        }
        SDL_Rect src = {idx * g->cellw, 0, g->cellw, g->cellh}, dst = {x, y, g->cellw, g->cellh};
        SDL_RenderCopy(g->ren, g->atlas, &src, &dst);
        x += g->cw;
    }
    return x - x0;
}

/* Text in at most max_chars glyphs, elided by whole words (never a
 * mnemonic cut inside a word: asc_viz_elide); nothing when the first word
 * does not fit. */
static int text_fit(VizGfx *g, int x, int y, const char *s, uint32_t rgb, int max_chars)
{
    char b[512];
    if (asc_viz_elide(s, max_chars, b, sizeof b) <= 0) return 0;
    return text(g, x, y, b, rgb, -1);
}

static int utf8_len(const char *s)
{
    int n = 0;
    for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
    return n;
}

/* ---- pieces of a frame -------------------------------------------------- */

#define C_BG 0xFFFFFF
#define C_BG_ALT 0xF6F7F9
#define C_HEADER 0xE3E8EF
#define C_TEXT 0x1E2228
#define C_DIM 0x6B7280
#define C_GRID 0xE2E4E8
#define C_TITLE 0x2B2F36
#define C_STALL 0xFFF1A0
#define C_HATCH 0xB59A00
#define C_BANK 0xE00000
#define C_SEL 0x1D4ED8
#define C_DEP 0xF97316
#define C_MATCH 0xC026D3
#define C_FLOW 0x374151

static double nice_step(double raw)
{
    if (!(raw > 0)) return 1;
    double p = pow(10, floor(log10(raw))), f = raw / p;
    return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * p;
}

static void fmt_us(char *b, size_t n, double us)
{
    double a = fabs(us);
    if (a >= 1e6) snprintf(b, n, "%.4g s", us / 1e6);
    else if (a >= 1e3) snprintf(b, n, "%.4g ms", us / 1e3);
    else if (a >= 1 || a == 0) snprintf(b, n, "%.4g \xc2\xb5s", us);
    else snprintf(b, n, "%.4g ns", us * 1e3);
}

static void draw_axis(VizGfx *g, const AscVizView *v)
{
    int y0 = 22, y1 = v->plot_y0;
    fill(g, 0, y0, v->width, y1 - y0, 0xFAFBFC);
    fill(g, 0, y1 - 1, v->width, 1, 0xC9CDD3);
    double plotw = v->plot_x1 - v->plot_x0;
    bool cyc = v->mhz > 0;
    double scale = cyc ? v->mhz : 1; /* axis units per us */
    double a = v->t0 * scale, b = v->t1 * scale;
    double step = nice_step((b - a) / (plotw / 110));
    if (cyc && step < 1) step = 1;
    text(g, 8, y0 + 4, cyc ? "cycles" : "time", C_DIM, -1);
    if (cyc) text(g, 8, y0 + 4 + g->ch, "\xc2\xb5s", C_DIM, -1);
    SDL_Rect clip = {v->plot_x0, y0, v->plot_x1 - v->plot_x0, v->height - y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    for (double k = ceil(a / step); k * step <= b; k++) {
        double val = k * step;
        if (fabs(val) < step * 1e-9) val = 0; /* no "-0" */
        int x = (int)floor(asc_viz_view_x_of_time(v, val / scale));
        fill(g, x, y1 - 6, 1, 6, 0x8A9099);
        fill(g, x, v->plot_y0, 1, v->plot_y1 - v->plot_y0, C_GRID);
        char l1[48], l2[48];
        if (cyc) {
            snprintf(l1, sizeof l1, "%.0f", val);
            fmt_us(l2, sizeof l2, val / scale);
            text(g, x + 3, y0 + 4, l1, C_TEXT, -1);
            text(g, x + 3, y0 + 4 + g->ch, l2, C_DIM, -1);
        } else {
            fmt_us(l1, sizeof l1, val);
            text(g, x + 3, y0 + 4, l1, C_TEXT, -1);
        }
    }
    SDL_RenderSetClipRect(g->ren, NULL);
}

static void hatch(VizGfx *g, int x, int y, int w, int h)
{
    SDL_Rect clip = {x, y, w, h};
    SDL_Rect old;
    SDL_RenderGetClipRect(g->ren, &old);
    SDL_Rect c = clip;
    if (old.w > 0 && !SDL_IntersectRect(&old, &clip, &c)) return;
    SDL_RenderSetClipRect(g->ren, &c);
    color(g, C_HATCH);
    int start = x - h - ((x - h) % 6 + 6) % 6;
    for (int k = start; k < x + w; k += 6) SDL_RenderDrawLine(g->ren, k, y + h, k + h, y);
    SDL_RenderSetClipRect(g->ren, old.w > 0 ? &old : NULL);
}

static void draw_event(VizGfx *g, const AscVizModel *m, const AscVizView *v, uint32_t i, int y0, int y1)
{
    const AscVizEvent *e = asc_viz_model_event(m, i);
    double xa = asc_viz_view_x_of_time(v, e->t0_us), xb = asc_viz_view_x_of_time(v, e->t1_us);
    if (xa < v->plot_x0 - 2) xa = v->plot_x0 - 2;
    if (xb > v->plot_x1 + 2) xb = v->plot_x1 + 2;
    int x = (int)floor(xa), w = (int)floor(xb) - x;
    if (w < 1) w = 1;
    int inset = e->depth > 3 ? 9 : e->depth * 3;
    int y = y0 + 2 + inset, h = y1 - y0 - 4 - inset;
    if (h < 3) h = 3;
    bool stall = e->flags & ASC_VIZ_EV_STALL;
    uint32_t rgb = e->rgb;
    if (stall && (rgb == 0xFFFF00 || (e->flags & ASC_VIZ_EV_WAITFLAG))) rgb = C_STALL;
    fill(g, x, y, w, h, rgb);
    if (w >= 4) frame_rect(g, x, y, w, h, blend(rgb, 0x000000, 0.35));
    if (stall && w >= 3) hatch(g, x + 1, y + 1, w - 2, h - 2);
    if (e->flags & ASC_VIZ_EV_BANK) fill(g, x, y, w, 3, C_BANK);
    if (w > 3 * g->cw && h >= g->ch - 2) {
        const char *name = asc_viz_model_str(m, e->name);
        int maxc = (w - 6) / g->cw;
        text_fit(g, x + 3, y + (h - g->ch) / 2, name, is_dark(rgb) ? 0xFFFFFF : C_TEXT, maxc);
    }
}

/* The async spans of row r (a copy's data in flight until it lands): a
 * thin translucent bar in the lane's colour along the bottom of the lane,
 * after the occupancy bar; overlapping copies add up to a darker bar. */
static void draw_async(VizGfx *g, const AscVizModel *m, const AscVizView *v, uint32_t r, int y0, int y1, uint32_t rgb)
{
    uint32_t first, count;
    asc_viz_model_row_async(m, r, &first, &count);
    if (!count) return;
    int h = (y1 - y0) / 5;
    if (h < 3) h = 3;
    int y = y1 - 2 - h;
    SDL_SetRenderDrawBlendMode(g->ren, SDL_BLENDMODE_BLEND);
    SDL_SetRenderDrawColor(g->ren, (Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 96);
    for (uint32_t i = first; i < first + count; i++) {
        const AscVizAsync *s = asc_viz_model_async(m, i);
        if (s->t1_us < v->t0 || s->t0_us > v->t1) continue;
        double xa = asc_viz_view_x_of_time(v, s->t0_us), xb = asc_viz_view_x_of_time(v, s->t1_us);
        if (xa < v->plot_x0 - 2) xa = v->plot_x0 - 2;
        if (xb > v->plot_x1 + 2) xb = v->plot_x1 + 2;
        int x = (int)floor(xa), w = (int)floor(xb) - x;
        if (w < 1) w = 1;
        SDL_Rect rc = {x, y, w, h};
        SDL_RenderFillRect(g->ren, &rc);
    }
    SDL_SetRenderDrawBlendMode(g->ren, SDL_BLENDMODE_NONE);
}

static void draw_rows(VizGfx *g, const AscVizModel *m, const AscVizView *v)
{
    int plotw = v->plot_x1 - v->plot_x0;
    if (!gfx_reserve(g, plotw + 8)) return;
    SDL_Rect clip = {v->plot_x0, v->plot_y0, plotw, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    double px = (v->t1 - v->t0) / plotw;
    for (uint32_t r = 0; r < v->nrows; r++) {
        int y0, y1;
        if (!asc_viz_view_row_band(v, r, &y0, &y1)) continue;
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        uint32_t first, last;
        asc_viz_model_window(m, r, v->t0 - px, v->t1 + px, &first, &last);
        if (last - first > (uint32_t)(2 * plotw)) {
            /* level of detail: one column per pixel */
            asc_viz_model_lod(m, r, v->t0, v->t1, (uint32_t)plotw, g->busy, g->stall);
            int nlev[LOD_LEVELS + 4] = {0};
            int bh = y1 - y0 - 4, sh = bh / 3;
            for (int c = 0; c < plotw; c++) {
                float b = g->busy[c], s = g->stall[c];
                if (b > 0) {
                    int lv = (int)ceil(b * LOD_LEVELS) - 1;
                    if (lv < 0) lv = 0;
                    if (lv >= LOD_LEVELS) lv = LOD_LEVELS - 1;
                    g->rects[lv][nlev[lv]++] = (SDL_Rect){v->plot_x0 + c, y0 + 2, 1, bh};
                }
                if (s > 0) {
                    int lv = s > 0.5f ? 1 : 0;
                    g->rects[LOD_LEVELS + lv][nlev[LOD_LEVELS + lv]++] =
                        (SDL_Rect){v->plot_x0 + c, y1 - 2 - sh, 1, sh};
                }
            }
            for (int lv = 0; lv < LOD_LEVELS; lv++) {
                if (!nlev[lv]) continue;
                color(g, blend(C_BG, ri.rgb, 0.3 + 0.7 * (lv + 1) / LOD_LEVELS));
                SDL_RenderFillRects(g->ren, g->rects[lv], nlev[lv]);
            }
            for (int lv = 0; lv < 2; lv++) {
                if (!nlev[LOD_LEVELS + lv]) continue;
                color(g, lv ? 0xD4B000 : 0xE9D66B);
                SDL_RenderFillRects(g->ren, g->rects[LOD_LEVELS + lv], nlev[LOD_LEVELS + lv]);
            }
            draw_async(g, m, v, r, y0, y1, ri.rgb);
            continue;
        }
        for (uint32_t i = first; i < last; i++) {
            const AscVizEvent *e = asc_viz_model_event(m, i);
            if (e->t1_us < v->t0 - px || e->t0_us > v->t1 + px) continue;
            draw_event(g, m, v, i, y0, y1);
        }
        draw_async(g, m, v, r, y0, y1, ri.rgb);
    }
    SDL_RenderSetClipRect(g->ren, NULL);
}

static void arrow(VizGfx *g, double x0, double y0, double x1, double y1, uint32_t rgb, bool thick)
{
    color(g, rgb);
    SDL_RenderDrawLineF(g->ren, (float)x0, (float)y0, (float)x1, (float)y1);
    if (thick) SDL_RenderDrawLineF(g->ren, (float)x0, (float)y0 + 1, (float)x1, (float)y1 + 1);
    double dx = x1 - x0, dy = y1 - y0, len = sqrt(dx * dx + dy * dy);
    if (len < 1) { dx = 0; dy = 1; len = 1; }
    dx /= len;
    dy /= len;
    double s = 7, wdt = 3.5;
    double bx = x1 - dx * s, by = y1 - dy * s;
    SDL_Vertex tri[3] = {
        {{(float)x1, (float)y1}, {(Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255}, {0, 0}},
        {{(float)(bx - dy * wdt), (float)(by + dx * wdt)}, {(Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255}, {0, 0}},
        {{(float)(bx + dy * wdt), (float)(by - dx * wdt)}, {(Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255}, {0, 0}},
    };
    SDL_RenderGeometry(g->ren, NULL, tri, 3, NULL, 0);
}

static void draw_flows(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    uint32_t n = asc_viz_model_flow_count(m);
    double plotw = v->plot_x1 - v->plot_x0;
    SDL_Rect clip = {v->plot_x0, v->plot_y0, (int)plotw, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    /* only when zoomed in enough for arrows to be told apart: at most one
     * per 6 pixel columns in view (the selected one is always drawn) */
    uint32_t inview = 0, limit = (uint32_t)(plotw / 6);
    for (uint32_t i = 0; i < n && inview <= limit; i++) {
        const AscVizFlow *f = asc_viz_model_flow(m, i);
        if ((f->ts_s >= v->t0 && f->ts_s <= v->t1) || (f->ts_t >= v->t0 && f->ts_t <= v->t1)) inview++;
    }
    bool all = inview <= limit;
    uint32_t shown = 0;
    for (uint32_t i = 0; i < n && shown < 4000; i++) {
        if (!all && !(ui && ui->deps.flow == (int64_t)i)) continue;
        const AscVizFlow *f = asc_viz_model_flow(m, i);
        double lo = f->ts_s < f->ts_t ? f->ts_s : f->ts_t, hi = f->ts_s < f->ts_t ? f->ts_t : f->ts_s;
        if (hi < v->t0 || lo > v->t1) continue;
        int ya0, ya1, yb0, yb1;
        bool va = asc_viz_view_row_band(v, f->row_s, &ya0, &ya1), vb = asc_viz_view_row_band(v, f->row_t, &yb0, &yb1);
        if (!va && !vb) continue;
        bool hl = ui && ui->deps.flow == (int64_t)i;
        shown++;
        arrow(g, asc_viz_view_x_of_time(v, f->ts_s), (ya0 + ya1) / 2.0, asc_viz_view_x_of_time(v, f->ts_t),
              (yb0 + yb1) / 2.0, hl ? C_DEP : C_FLOW, hl);
    }
    SDL_RenderSetClipRect(g->ren, NULL);
}

static void outline_event(VizGfx *g, const AscVizModel *m, const AscVizView *v, int64_t ev, uint32_t rgb, int thick)
{
    if (ev < 0) return;
    const AscVizEvent *e = asc_viz_model_event(m, (uint32_t)ev);
    int y0, y1;
    if (!e || !asc_viz_view_row_band(v, e->row, &y0, &y1)) return;
    int x0 = (int)floor(asc_viz_view_x_of_time(v, e->t0_us)), x1 = (int)floor(asc_viz_view_x_of_time(v, e->t1_us));
    if (x1 < v->plot_x0 || x0 > v->plot_x1) return;
    if (x1 - x0 < 3) { x0 -= 2; x1 += 2; }
    SDL_Rect clip = {v->plot_x0 - 4, v->plot_y0, v->plot_x1 - v->plot_x0 + 8, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    for (int k = 0; k < thick; k++) frame_rect(g, x0 - k - 1, y0 - k + 1, x1 - x0 + 2 * k + 2, y1 - y0 + 2 * k - 2, rgb);
    SDL_RenderSetClipRect(g->ren, NULL);
}

/* A counter's colour: the lane named by the last word of its name in the
 * same process ("queue MTE2" -> MTE2's orange), else a fixed violet. */
static uint32_t counter_rgb(const AscVizModel *m, uint32_t c)
{
    AscVizCounterInfo ci = asc_viz_model_counter(m, c);
    const char *sp = strrchr(ci.name, ' ');
    int r = asc_viz_model_find_row(m, ci.process, sp ? sp + 1 : ci.name);
    return r >= 0 ? asc_viz_model_row(m, (uint32_t)r).rgb : 0x7C3AED;
}

static void fmt_value(char *b, size_t n, double v)
{
    if (v == floor(v) && fabs(v) < 1e9) snprintf(b, n, "%.0f", v);
    else snprintf(b, n, "%.4g", v);
}

/* Counter tracks: a step line over a light fill, scaled from min(0, vmin)
 * to vmax over the whole trace (so zooming never rescales).  Drawn per
 * pixel column from the model's counter LOD (min, max, final value), so a
 * column with several steps shows their whole range as a vertical stroke. */
static void draw_counters(VizGfx *g, const AscVizModel *m, const AscVizView *v)
{
    int plotw = v->plot_x1 - v->plot_x0;
    if (!v->nctrs || !gfx_reserve(g, plotw + 8)) return;
    SDL_Rect clip = {v->plot_x0, v->plot_y0, plotw, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    for (uint32_t c = 0; c < v->nctrs; c++) {
        int y0, y1;
        if (!asc_viz_view_counter_band(v, c, &y0, &y1)) continue;
        AscVizCounterInfo ci = asc_viz_model_counter(m, c);
        uint32_t rgb = counter_rgb(m, c);
        double base = ci.vmin < 0 ? ci.vmin : 0, top = ci.vmax > base ? ci.vmax : base + 1;
        int yb = y1 - 3, h = y1 - y0 - 7; /* baseline row and drawing height */
        fill(g, v->plot_x0, yb, plotw, 1, 0xD5D9DF);
        asc_viz_model_counter_lod(m, c, v->t0, v->t1, (uint32_t)plotw, g->busy, g->stall, g->last);
        int na = 0, nl = 0;
        int prev_y = -1;
        for (int k = 0; k < plotw; k++) {
            int ylo = yb - (int)lround((g->busy[k] - base) / (top - base) * h);
            int yhi = yb - (int)lround((g->stall[k] - base) / (top - base) * h);
            int yl = yb - (int)lround((g->last[k] - base) / (top - base) * h);
            if (yl < yb) g->rects[0][na++] = (SDL_Rect){v->plot_x0 + k, yl, 1, yb - yl};
            /* the line: this column's range, joined to the previous column's end */
            int a = yhi, b = ylo;
            if (prev_y >= 0 && prev_y < a) a = prev_y;
            if (prev_y >= 0 && prev_y > b) b = prev_y;
            g->rects[1][nl++] = (SDL_Rect){v->plot_x0 + k, a, 1, b - a + 1};
            prev_y = yl;
        }
        color(g, blend(C_BG, rgb, 0.28));
        SDL_RenderFillRects(g->ren, g->rects[0], na);
        color(g, blend(rgb, 0x000000, 0.25));
        SDL_RenderFillRects(g->ren, g->rects[1], nl);
    }
    SDL_RenderSetClipRect(g->ren, NULL);
}

/* A small expand mark: pointing right (collapsed) or down (expanded). */
static void triangle(VizGfx *g, int x, int yc, bool right, uint32_t rgb)
{
    SDL_Color c = {(Uint8)(rgb >> 16), (Uint8)(rgb >> 8), (Uint8)rgb, 255};
    SDL_Vertex t[3];
    if (right) {
        t[0] = (SDL_Vertex){{(float)x, (float)yc - 4.5f}, c, {0, 0}};
        t[1] = (SDL_Vertex){{(float)x + 7, (float)yc}, c, {0, 0}};
        t[2] = (SDL_Vertex){{(float)x, (float)yc + 4.5f}, c, {0, 0}};
    } else {
        t[0] = (SDL_Vertex){{(float)x, (float)yc - 3}, c, {0, 0}};
        t[1] = (SDL_Vertex){{(float)x + 9, (float)yc - 3}, c, {0, 0}};
        t[2] = (SDL_Vertex){{(float)x + 4.5f, (float)yc + 4}, c, {0, 0}};
    }
    SDL_RenderGeometry(g->ren, NULL, t, 3, NULL, 0);
}

/* A group pipe's colour: its first row's lane colour. */
static uint32_t group_pipe_rgb(const AscVizModel *m, uint32_t gi, uint32_t k)
{
    AscVizGroupInfo gr = asc_viz_model_group(m, gi);
    const char *pn = asc_viz_model_group_pipe(m, gi, k);
    for (uint32_t r = gr.first_row; r < gr.first_row + gr.nrows; r++) {
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        if (!strcmp(ri.lane, pn)) return ri.rgb;
    }
    return 0x8C8C8C;
}

/* Summary rows of collapsed groups: one strip per pipe, top to bottom in
 * lane order, each pixel column shaded by the pipe's busy fraction there
 * (averaged over the group's rows of that lane): a heat map of the core. */
static void draw_groups(VizGfx *g, const AscVizModel *m, const AscVizView *v)
{
    int plotw = v->plot_x1 - v->plot_x0;
    if (!gfx_reserve(g, plotw + 8)) return;
    SDL_Rect clip = {v->plot_x0, v->plot_y0, plotw, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    for (uint32_t gi = 0; gi < v->ngroups; gi++) {
        int y0, y1;
        if (!asc_viz_view_group_band(v, gi, &y0, &y1)) continue;
        AscVizGroupInfo gr = asc_viz_model_group(m, gi);
        if (!gr.npipes) continue;
        int inner = y1 - y0 - 4, sh = inner / (int)gr.npipes;
        if (sh < 1) sh = 1;
        int ys = y0 + 2 + (inner - sh * (int)gr.npipes) / 2;
        for (uint32_t k = 0; k < gr.npipes; k++, ys += sh) {
            if (ys + sh > y1 - 1) break;
            uint32_t rgb = group_pipe_rgb(m, gi, k);
            asc_viz_model_group_lod(m, gi, k, v->t0, v->t1, (uint32_t)plotw, g->busy);
            int nlev[LOD_LEVELS] = {0};
            for (int c = 0; c < plotw; c++) {
                float b = g->busy[c];
                if (!(b > 0)) continue;
                int lv = (int)ceil(b * LOD_LEVELS) - 1;
                if (lv < 0) lv = 0;
                if (lv >= LOD_LEVELS) lv = LOD_LEVELS - 1;
                g->rects[lv][nlev[lv]++] = (SDL_Rect){v->plot_x0 + c, ys, 1, sh};
            }
            for (int lv = 0; lv < LOD_LEVELS; lv++) {
                if (!nlev[lv]) continue;
                color(g, blend(C_BG, rgb, 0.25 + 0.75 * (lv + 1) / LOD_LEVELS));
                SDL_RenderFillRects(g->ren, g->rects[lv], nlev[lv]);
            }
        }
    }
    SDL_RenderSetClipRect(g->ren, NULL);
}

static void draw_labels(VizGfx *g, const AscVizModel *m, const AscVizView *v)
{
    SDL_Rect clip = {0, v->plot_y0, v->width, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    fill(g, 0, v->plot_y0, v->label_w, v->plot_y1 - v->plot_y0, 0xF0F2F5);
    for (uint32_t p = 0; p < v->nprocs; p++) {
        if (v->proc_y[p] < 0) continue; /* nothing shown (counters hidden) */
        int y = v->plot_y0 + v->proc_y[p] - v->scroll_y;
        if (y + v->header_h < v->plot_y0 || y > v->plot_y1) continue;
        fill(g, 0, y, v->width, v->header_h, C_HEADER);
        fill(g, 0, y + v->header_h - 1, v->width, 1, 0xC9CDD3);
        uint32_t gi = asc_viz_model_group_of_proc(m, p);
        AscVizGroupInfo gr = asc_viz_model_group(m, gi);
        int tx = 6;
        if (gr.nrows && gr.first_proc == p) { /* the group's first header carries its expand mark */
            triangle(g, 6, y + v->header_h / 2, false, C_TEXT);
            tx = 18;
        }
        text(g, tx, y + (v->header_h - g->ch) / 2, asc_viz_model_process_name(m, p), C_TEXT, -1);
    }
    for (uint32_t gi = 0; gi < v->ngroups; gi++) {
        int y0, y1;
        if (!asc_viz_view_group_band(v, gi, &y0, &y1)) continue;
        AscVizGroupInfo gr = asc_viz_model_group(m, gi);
        triangle(g, 6, (y0 + y1) / 2, true, C_TEXT);
        int x = 18 + text(g, 18, y0 + (y1 - y0 - g->ch) / 2, gr.name, C_TEXT, -1) + 8;
        /* the pipes of the strips, top to bottom, as coloured initials */
        for (uint32_t k = 0; k < gr.npipes && x + g->cw < v->label_w - 4; k++) {
            const char *pn = asc_viz_model_group_pipe(m, gi, k);
            char b[2] = {pn[0], 0};
            text(g, x, y0 + (y1 - y0 - g->ch) / 2, b, blend(group_pipe_rgb(m, gi, k), 0, 0.3), -1);
            x += g->cw;
        }
    }
    for (uint32_t r = 0; r < v->nrows; r++) {
        int y0, y1;
        if (!asc_viz_view_row_band(v, r, &y0, &y1)) continue;
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        int sh = y1 - y0 - 8 < 14 ? y1 - y0 - 8 : 14; /* swatch: at most 14 px tall when rows are tall */
        fill(g, 6, y0 + (y1 - y0 - sh) / 2, 8, sh, ri.rgb);
        frame_rect(g, 6, y0 + (y1 - y0 - sh) / 2, 8, sh, blend(ri.rgb, 0, 0.35));
        text_fit(g, 20, y0 + (y1 - y0 - g->ch) / 2, ri.lane, C_TEXT, (v->label_w - 26) / g->cw);
    }
    for (uint32_t c = 0; c < v->nctrs; c++) {
        int y0, y1;
        if (!asc_viz_view_counter_band(v, c, &y0, &y1)) continue;
        AscVizCounterInfo ci = asc_viz_model_counter(m, c);
        uint32_t rgb = counter_rgb(m, c);
        fill(g, 8, y0 + (y1 - y0) / 2, 4, 1, rgb); /* a tiny step glyph */
        fill(g, 11, y0 + (y1 - y0) / 2 - 4, 1, 5, rgb);
        fill(g, 11, y0 + (y1 - y0) / 2 - 4, 4, 1, rgb);
        text_fit(g, 20, y0 + (y1 - y0 - g->ch) / 2, ci.name, C_DIM, (v->label_w - 26) / g->cw);
    }
    fill(g, v->label_w - 1, v->plot_y0, 1, v->plot_y1 - v->plot_y0, 0xC9CDD3);
    SDL_RenderSetClipRect(g->ren, NULL);
}

static void draw_panel(VizGfx *g, const AscVizModel *m, const AscVizView *v)
{
    if (v->panel_w <= 0) return;
    int x = v->plot_x1;
    fill(g, x, 22, v->panel_w, v->height - 22 - v->footer_h, 0xF0F2F5);
    fill(g, x, 22, 1, v->height - 22 - v->footer_h, 0xC9CDD3);
    text(g, x + 6, 26, "utilisation", C_TEXT, -1);
    text(g, x + 6, 26 + g->ch, "view  (total)", C_DIM, -1);
    double s0, s1;
    asc_viz_model_span(m, &s0, &s1);
    SDL_Rect clip = {x, v->plot_y0, v->panel_w, v->plot_y1 - v->plot_y0};
    SDL_RenderSetClipRect(g->ren, &clip);
    for (uint32_t r = 0; r < v->nrows; r++) {
        int y0, y1;
        if (!asc_viz_view_row_band(v, r, &y0, &y1)) continue;
        AscVizRowInfo ri = asc_viz_model_row(m, r);
        double uv = asc_viz_model_utilisation(m, r, v->t0 > s0 ? v->t0 : s0, v->t1 < s1 ? v->t1 : s1);
        double ut = asc_viz_model_utilisation(m, r, s0, s1);
        int bw = 50, bx = x + 6, bh = y1 - y0 - 10 < 14 ? y1 - y0 - 10 : 14, by = y0 + (y1 - y0 - bh) / 2;
        fill(g, bx, by, bw, bh, 0xDDE1E6);
        fill(g, bx, by, (int)lround(uv * bw), bh, ri.rgb);
        frame_rect(g, bx, by, bw, bh, 0xA0A6AE);
        char b[32];
        snprintf(b, sizeof b, "%3.0f%% (%.0f%%)", uv * 100, ut * 100);
        text(g, bx + bw + 6, y0 + (y1 - y0 - g->ch) / 2, b, C_TEXT, -1);
    }
    for (uint32_t gi = 0; gi < v->ngroups; gi++) {
        int y0, y1;
        if (!asc_viz_view_group_band(v, gi, &y0, &y1)) continue;
        /* the busiest pipe of the core, over the view (and the trace) */
        AscVizGroupInfo gr = asc_viz_model_group(m, gi);
        double best = -1, bt = 0;
        uint32_t bk = 0;
        for (uint32_t k = 0; k < gr.npipes; k++) {
            double u = asc_viz_model_group_utilisation(m, gi, k, v->t0 > s0 ? v->t0 : s0, v->t1 < s1 ? v->t1 : s1);
            if (u > best) best = u, bk = k;
        }
        if (best < 0) continue;
        bt = asc_viz_model_group_utilisation(m, gi, bk, s0, s1);
        char b[64];
        snprintf(b, sizeof b, "%s %.0f%% (%.0f%%)", asc_viz_model_group_pipe(m, gi, bk), best * 100, bt * 100);
        text_fit(g, x + 6, y0 + (y1 - y0 - g->ch) / 2, b, C_TEXT, (v->panel_w - 8) / g->cw);
    }
    for (uint32_t c = 0; c < v->nctrs; c++) {
        int y0, y1;
        if (!asc_viz_view_counter_band(v, c, &y0, &y1)) continue;
        AscVizCounterInfo ci = asc_viz_model_counter(m, c);
        char b[48], val[32];
        fmt_value(val, sizeof val, ci.vmax);
        snprintf(b, sizeof b, "peak %s", val);
        text_fit(g, x + 6, y0 + (y1 - y0 - g->ch) / 2, b, C_DIM, (v->panel_w - 8) / g->cw);
    }
    SDL_RenderSetClipRect(g->ren, NULL);
}

static const char *const legend_lanes[] = {"SCALAR", "FLOWCTRL", "MTE1", "CUBE", "FIXP", "MTE2", "VECTOR", "MTE3"};

static void draw_footer(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    int y = v->height - v->footer_h;
    fill(g, 0, y, v->width, v->footer_h, 0xFAFBFC);
    fill(g, 0, y, v->width, 1, 0xC9CDD3);
    int ty = y + (v->footer_h - g->ch) / 2, x = 8;
    if (ui && (ui->searching || ui->matches)) {
        char b[200];
        int n = ui->matches ? (int)ui->matches->count : 0;
        if (ui->matches)
            snprintf(b, sizeof b, "search: %s%s   %d match%s%s", ui->search, ui->searching ? "_" : "", n,
                     n == 1 ? "" : "es", n ? "   Enter: next  Shift+Enter: previous  Esc: cancel" : "   Esc: cancel");
        else
            snprintf(b, sizeof b, "search: %s_   type a mnemonic, Enter: find  Esc: cancel", ui->search);
        if (ui->matches && ui->match_cur >= 0) {
            size_t l = strlen(b);
            snprintf(b + l, sizeof b - l, "   [%lld/%d]", (long long)ui->match_cur + 1, n);
        }
        fill(g, 0, y + 1, v->width, v->footer_h - 1, 0xFDF4FF);
        text(g, x, ty, b, C_MATCH, -1);
        return;
    }
    /* legend: lanes present, then the marks */
    for (size_t k = 0; k < sizeof legend_lanes / sizeof legend_lanes[0]; k++) {
        bool present = false;
        uint32_t rgb = 0;
        for (uint32_t r = 0; r < v->nrows && !present; r++) {
            AscVizRowInfo ri = asc_viz_model_row(m, r);
            if (!strcmp(ri.lane, legend_lanes[k])) { present = true; rgb = ri.rgb; }
        }
        if (!present) continue;
        fill(g, x, ty + 1, 12, g->ch - 2, rgb);
        frame_rect(g, x, ty + 1, 12, g->ch - 2, blend(rgb, 0, 0.35));
        x += 16 + text(g, x + 16, ty, legend_lanes[k], C_TEXT, -1) + 12;
    }
    fill(g, x, ty + 1, 18, g->ch - 2, C_STALL);
    hatch(g, x, ty + 1, 18, g->ch - 2);
    x += 22 + text(g, x + 22, ty, "stall / wait_flag", C_TEXT, -1) + 12;
    fill(g, x, ty + 1, 18, g->ch - 2, 0xEE8888);
    fill(g, x, ty + 1, 18, 3, C_BANK);
    x += 22 + text(g, x + 22, ty, "bank conflict", C_TEXT, -1) + 12;
    fill(g, x, ty + 1, 18, g->ch - 2, 0x000000);
    x += 22 + text(g, x + 22, ty, "set_flag", C_TEXT, -1) + 12;
    fill(g, x, ty + g->ch - 5, 18, 4, blend(C_BG, 0xFF8C00, 0.4));
    x += 22 + text(g, x + 22, ty, "in flight", C_TEXT, -1) + 12;
    arrow(g, x, ty + g->ch / 2.0, x + 22, ty + g->ch / 2.0, C_FLOW, false);
    x += 28 + text(g, x + 28, ty, "flag arrow", C_TEXT, -1) + 12;
    text(g, v->width - 14 * g->cw, ty, "? for help", C_DIM, -1);
}

static void draw_title(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    fill(g, 0, 0, v->width, 22, C_TITLE);
    char b[512], w0[32], w1[32];
    fmt_us(w0, sizeof w0, v->t0);
    fmt_us(w1, sizeof w1, v->t1 - v->t0);
    int n;
    if (v->mhz > 0)
        n = snprintf(b, sizeof b, "asc-viz  %s   clock %.0f MHz   view %.0f .. %.0f cycles (%s wide)   %u events  %u lanes",
                     ui && ui->title ? ui->title : "", v->mhz, v->t0 * v->mhz, v->t1 * v->mhz, w1,
                     asc_viz_model_event_count(m), v->nrows);
    else
        n = snprintf(b, sizeof b, "asc-viz  %s   no clock (use --mhz N for cycles)   view from %s, %s wide   %u events  %u lanes",
                     ui && ui->title ? ui->title : "", w0, w1, asc_viz_model_event_count(m), v->nrows);
    (void)n;
    text_fit(g, 8, (22 - g->ch) / 2, b, 0xFFFFFF, (v->width - 16) / g->cw);
}

/* A box of text lines near the mouse (first line in the selection blue). */
static void text_box(VizGfx *g, const AscVizView *v, const AscVizUi *ui, char (*lines)[400], int n)
{
    int wmax = 0;
    for (int i = 0; i < n; i++) {
        int l = utf8_len(lines[i]);
        if (l > wmax) wmax = l;
    }
    if (wmax > 90) wmax = 90;
    int w = wmax * g->cw + 16, h = n * (g->ch + 2) + 10;
    int x = ui->mouse_x + 16, y = ui->mouse_y + 18;
    if (x + w > v->width - 4) x = ui->mouse_x - w - 8;
    if (y + h > v->height - 4) y = ui->mouse_y - h - 8;
    if (x < 4) x = 4;
    if (y < 4) y = 4;
    fill(g, x + 3, y + 3, w, h, 0xB8BDC4);
    fill(g, x, y, w, h, 0xFFFFF0);
    frame_rect(g, x, y, w, h, 0x6B7280);
    for (int i = 0; i < n; i++) text_fit(g, x + 8, y + 5 + i * (g->ch + 2), lines[i], i ? C_TEXT : C_SEL, 90);
}

/* Hovering a counter track: its value under the mouse, with a guide line. */
static void counter_tooltip(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    int c = (int)ui->hover_counter, y0, y1;
    if (c < 0 || ui->mouse_x < v->plot_x0 || ui->mouse_x >= v->plot_x1 ||
        !asc_viz_view_counter_band(v, (uint32_t)c, &y0, &y1))
        return;
    AscVizCounterInfo ci = asc_viz_model_counter(m, (uint32_t)c);
    double t = asc_viz_view_time_of_x(v, ui->mouse_x + 0.5), mhz = asc_viz_model_mhz(m);
    char lines[3][400], val[32], peak[32], at[32];
    fmt_value(val, sizeof val, asc_viz_model_counter_value(m, (uint32_t)c, t));
    fmt_value(peak, sizeof peak, ci.vmax);
    fmt_us(at, sizeof at, t);
    snprintf(lines[0], 400, "%s = %s", ci.name, val);
    if (mhz > 0) snprintf(lines[1], 400, "at cycle %.0f (%s)", t * mhz, at);
    else snprintf(lines[1], 400, "at %s", at);
    snprintf(lines[2], 400, "peak %s over the trace   %s", peak, ci.process);
    fill(g, ui->mouse_x, y0, 1, y1 - y0, 0x111827);
    text_box(g, v, ui, lines, 3);
}

static void tooltip(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    if (ui->hover < 0) {
        counter_tooltip(g, m, v, ui);
        return;
    }
    const AscVizEvent *e = asc_viz_model_event(m, (uint32_t)ui->hover);
    if (!e) return;
    AscVizEventArgs a;
    asc_viz_model_event_args(m, (uint32_t)ui->hover, &a);
    AscVizRowInfo ri = asc_viz_model_row(m, e->row);
    char lines[12][400];
    int n = 0;
    snprintf(lines[n++], 400, "%s", asc_viz_model_str(m, e->name));
    if (a.instr[0]) snprintf(lines[n++], 400, "instr   %s", a.instr);
    if (a.pc[0] || a.source[0]) snprintf(lines[n++], 400, "pc      %s   %s", a.pc[0] ? a.pc : "-", a.source);
    double mhz = asc_viz_model_mhz(m);
    char d[32], t0[32];
    fmt_us(d, sizeof d, e->t1_us - e->t0_us);
    fmt_us(t0, sizeof t0, e->t0_us);
    if (e->flags & ASC_VIZ_EV_CYCLES)
        snprintf(lines[n++], 400, "cycles  %lld .. %lld  (%lld cycles, %s)", (long long)e->c0, (long long)e->c1,
                 (long long)(e->c1 - e->c0), d);
    else if (mhz > 0)
        snprintf(lines[n++], 400, "cycles  %.0f .. %.0f  (%.0f cycles, %s)", e->t0_us * mhz, e->t1_us * mhz,
                 (e->t1_us - e->t0_us) * mhz, d);
    else
        snprintf(lines[n++], 400, "time    %s, lasts %s", t0, d);
    if (a.stall[0]) snprintf(lines[n++], 400, "stall   %s", a.stall);
    else if (e->flags & ASC_VIZ_EV_WAITFLAG) snprintf(lines[n++], 400, "stall   waiting on a flag");
    if (a.bytes >= 0) snprintf(lines[n++], 400, "bytes   %lld", (long long)a.bytes);
    if (a.bank_conflict_beats >= 0)
        snprintf(lines[n++], 400, "bank conflict beats  %lld", (long long)a.bank_conflict_beats);
    snprintf(lines[n++], 400, "lane    %s / %s", ri.process, ri.lane);
    if (a.other[0]) snprintf(lines[n++], 400, "args    %.180s", a.other);
    text_box(g, v, ui, lines, n);
}

/* ---- the details panel of the selected event ---------------------------- */

#define DETAILS_LINES 7

int viz_gfx_details_height(const VizGfx *g)
{
    return DETAILS_LINES * (g->ch + 3) + 14;
}

/* "name  cycles a..b (n cycles)" of an event, for the "waited for" column. */
static void event_span(char *b, size_t n, const AscVizModel *m, int64_t ev)
{
    const AscVizEvent *e = asc_viz_model_event(m, (uint32_t)ev);
    AscVizRowInfo ri = asc_viz_model_row(m, e->row);
    double mhz = asc_viz_model_mhz(m);
    if (e->flags & ASC_VIZ_EV_CYCLES)
        snprintf(b, n, "%s on %s, cycles %lld..%lld", asc_viz_model_str(m, e->name), ri.lane, (long long)e->c0,
                 (long long)e->c1);
    else if (mhz > 0)
        snprintf(b, n, "%s on %s, cycles %.0f..%.0f", asc_viz_model_str(m, e->name), ri.lane, e->t0_us * mhz,
                 e->t1_us * mhz);
    else {
        char t0[32], t1[32];
        fmt_us(t0, sizeof t0, e->t0_us);
        fmt_us(t1, sizeof t1, e->t1_us);
        snprintf(b, n, "%s on %s, %s..%s", asc_viz_model_str(m, e->name), ri.lane, t0, t1);
    }
}

/* Docked under the rows while an event is selected (the window reserves
 * the space): what the event is on the left, what it waited for on the
 * right, so a class can read both while the timeline stays visible. */
static void draw_details(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    if (ui->selected < 0 || v->bottom_h <= 0) return;
    const AscVizEvent *e = asc_viz_model_event(m, (uint32_t)ui->selected);
    if (!e) return;
    int y = v->plot_y1, h = v->bottom_h, lh = g->ch + 3;
    fill(g, 0, y, v->width, h, 0xF8FAFC);
    fill(g, 0, y, v->width, 2, C_SEL);
    AscVizEventArgs a;
    asc_viz_model_event_args(m, (uint32_t)ui->selected, &a);
    AscVizRowInfo ri = asc_viz_model_row(m, e->row);
    char L[DETAILS_LINES][400], R[DETAILS_LINES][400];
    memset(L, 0, sizeof L);
    memset(R, 0, sizeof R);
    int n = 0;
    snprintf(L[n++], 400, "%s   (%s / %s)", asc_viz_model_str(m, e->name), ri.process, ri.lane);
    snprintf(L[n++], 400, "instr   %s", a.instr[0] ? a.instr : "-");
    snprintf(L[n++], 400, "pc      %s   %s", a.pc[0] ? a.pc : "-", a.source);
    double mhz = asc_viz_model_mhz(m);
    char d[32];
    fmt_us(d, sizeof d, e->t1_us - e->t0_us);
    if (e->flags & ASC_VIZ_EV_CYCLES)
        snprintf(L[n++], 400, "cycles  %lld .. %lld   (%lld cycles, %s)", (long long)e->c0, (long long)e->c1,
                 (long long)(e->c1 - e->c0), d);
    else if (mhz > 0)
        snprintf(L[n++], 400, "cycles  %.0f .. %.0f   (%.0f cycles, %s)", e->t0_us * mhz, e->t1_us * mhz,
                 (e->t1_us - e->t0_us) * mhz, d);
    else
        snprintf(L[n++], 400, "lasts   %s", d);
    if (a.stall[0]) snprintf(L[n++], 400, "stall   %s", a.stall);
    else if (e->flags & ASC_VIZ_EV_WAITFLAG) snprintf(L[n++], 400, "stall   waiting on a flag");
    else snprintf(L[n++], 400, "stall   none");
    char bytes[32] = "-", beats[32] = "-";
    if (a.bytes >= 0) snprintf(bytes, sizeof bytes, "%lld", (long long)a.bytes);
    if (a.bank_conflict_beats >= 0) snprintf(beats, sizeof beats, "%lld", (long long)a.bank_conflict_beats);
    snprintf(L[n++], 400, "bytes   %s   bank-conflict beats %s", bytes, beats);
    if (a.other[0]) snprintf(L[n++], 400, "args    %.300s", a.other);

    int k = 0;
    snprintf(R[k++], 400, "waited for");
    const AscVizDeps *dp = &ui->deps;
    if (dp->flow < 0) {
        snprintf(R[k++], 400, "no flag arrow ends on this lane before it ends");
    } else {
        const AscVizFlow *f = asc_viz_model_flow(m, (uint32_t)dp->flow);
        AscVizRowInfo rs = asc_viz_model_row(m, f->row_s), rt = asc_viz_model_row(m, f->row_t);
        if (mhz > 0)
            snprintf(R[k++], 400, "flag    %s: %s -> %s, set at cycle %.0f, released at %.0f",
                     asc_viz_model_str(m, f->cat), rs.lane, rt.lane, f->ts_s * mhz, f->ts_t * mhz);
        else
            snprintf(R[k++], 400, "flag    %s: %s -> %s", asc_viz_model_str(m, f->cat), rs.lane, rt.lane);
        char b[300];
        if (dp->wait >= 0) { event_span(b, sizeof b, m, dp->wait); snprintf(R[k++], 400, "wait    %s", b); }
        if (dp->set >= 0) { event_span(b, sizeof b, m, dp->set); snprintf(R[k++], 400, "set     %s", b); }
        if (dp->producer >= 0) {
            event_span(b, sizeof b, m, dp->producer);
            snprintf(R[k++], 400, "after   %s", b);
        }
    }
    snprintf(R[DETAILS_LINES - 1], 400, "Esc: clear the selection");
    int half = v->width / 2, maxl = (half - 24) / g->cw;
    for (int i = 0; i < n; i++) text_fit(g, 12, y + 8 + i * lh, L[i], i ? C_TEXT : C_SEL, maxl);
    for (int i = 0; i < DETAILS_LINES; i++)
        if (R[i][0])
            text_fit(g, half + 12, y + 8 + i * lh, R[i], i == 0 ? C_DEP : i == DETAILS_LINES - 1 ? C_DIM : C_TEXT,
                 (v->width - half - 24) / g->cw);
    fill(g, half, y + 8, 1, h - 16, 0xD5D9DF);
}

/* ---- step mode ---------------------------------------------------------- */

#define C_STEP 0x0891B2

int viz_gfx_step_height(const VizGfx *g, const AscVizState *st)
{
    return ((st ? (int)st->npipes : 0) + 3) * (g->ch + 3) + 14;
}

/* "at cycle N" or "at T" */
static void fmt_at(char *b, size_t n, const AscVizModel *m, double t)
{
    double mhz = asc_viz_model_mhz(m);
    if (mhz > 0) snprintf(b, n, "cycle %.0f", t * mhz);
    else fmt_us(b, n, t);
}

/* a flow category "VECTORToMTE2" as "VECTOR->MTE2" */
static void fmt_cat(char *b, size_t n, const char *cat)
{
    const char *to = strstr(cat, "To");
    if (to && to > cat && to[2]) snprintf(b, n, "%.*s->%s", (int)(to - cat), cat, to + 2);
    else snprintf(b, n, "%s", cat);
}

/* The cursor: a line at the cursor event's start through the plot, the
 * event outlined; under the rows the state of its core at that cycle: per
 * pipe what runs, what waits on which flag (and when and by whom it is
 * set), the queue's contents; then the flags that are set. */
static void draw_step(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    if (ui->step < 0) return;
    const AscVizEvent *e = asc_viz_model_event(m, (uint32_t)ui->step);
    if (!e) return;
    double xc = asc_viz_view_x_of_time(v, e->t0_us);
    if (xc >= v->plot_x0 && xc < v->plot_x1) fill(g, (int)floor(xc), v->plot_y0, 2, v->plot_y1 - v->plot_y0, C_STEP);
    outline_event(g, m, v, ui->step, C_STEP, 3);
    const AscVizState *st = ui->state;
    if (!st || v->bottom_h <= 0) return;
    int y = v->plot_y1, h = v->bottom_h, lh = g->ch + 3, maxc = (v->width - 24) / g->cw;
    fill(g, 0, y, v->width, h, 0xF0FDFF);
    fill(g, 0, y, v->width, 2, C_STEP);
    SDL_Rect clip = {0, y, v->width, h};
    SDL_RenderSetClipRect(g->ren, &clip);
    char b[1024], at[48], at2[48];
    AscVizRowInfo ri = asc_viz_model_row(m, e->row);
    fmt_at(at, sizeof at, m, e->t0_us);
    snprintf(b, sizeof b, "step  %s   cursor: %s on %s / %s   Left/Right: previous/next event (Shift: 10)   s or Esc: leave",
             at, asc_viz_model_str(m, e->name), ri.process, ri.lane);
    int ly = y + 6;
    text_fit(g, 12, ly, b, C_STEP, maxc);
    ly += lh;
    for (uint32_t k = 0; k < st->npipes; k++, ly += lh) {
        const AscVizPipeState *p = &st->pipes[k];
        AscVizRowInfo pr = asc_viz_model_row(m, p->row);
        const char *dot = strchr(pr.process, '.');
        int n = snprintf(b, sizeof b, "%-10.10s %-8.8s ", dot ? dot + 1 : pr.process, pr.lane);
        if (p->waiting >= 0) {
            const AscVizEvent *w = asc_viz_model_event(m, (uint32_t)p->waiting);
            AscVizEventArgs a;
            asc_viz_model_event_args(m, (uint32_t)p->waiting, &a);
            fmt_at(at2, sizeof at2, m, w->t1_us);
            n += snprintf(b + n, sizeof b - (size_t)n, "WAITS  %s on %s until %s", asc_viz_model_str(m, w->name),
                          a.stall[0] ? a.stall : "a flag", at2);
            if (p->release >= 0) {
                const AscVizFlow *f = asc_viz_model_flow(m, (uint32_t)p->release);
                fmt_at(at2, sizeof at2, m, f->ts_s);
                n += snprintf(b + n, sizeof b - (size_t)n, " (set by %s at %s%s)", asc_viz_model_row(m, f->row_s).lane,
                              at2, f->ts_s > st->t ? ", later" : "");
            }
        } else if (p->running >= 0) {
            const AscVizEvent *r = asc_viz_model_event(m, (uint32_t)p->running);
            AscVizEventArgs a;
            asc_viz_model_event_args(m, (uint32_t)p->running, &a);
            fmt_at(at2, sizeof at2, m, r->t1_us);
            n += snprintf(b + n, sizeof b - (size_t)n, "runs   %s until %s", a.instr[0] ? a.instr : asc_viz_model_str(m, r->name),
                          at2);
        } else {
            n += snprintf(b + n, sizeof b - (size_t)n, "idle");
        }
        if (n < (int)sizeof b && p->queue_ctr >= 0) {
            n += snprintf(b + n, sizeof b - (size_t)n, "   | queue %u%s", p->queued, p->queue_len ? ":" : "");
            for (uint32_t q = 0; q < p->queue_len && n < (int)sizeof b - 40; q++) {
                const AscVizEvent *qe = asc_viz_model_event(m, p->queue_first + q);
                n += snprintf(b + n, sizeof b - (size_t)n, " %s", asc_viz_model_str(m, qe->name));
            }
        }
        uint32_t rgb = p->waiting >= 0 ? C_HATCH : p->running >= 0 ? C_TEXT : C_DIM;
        fill(g, 6, ly + 2, 4, g->ch - 4, pr.rgb);
        text_fit(g, 14, ly, b, rgb, maxc - 1);
    }
    int n = snprintf(b, sizeof b, "flags set: %s", st->nflags ? "" : "none");
    for (uint32_t k = 0; k < st->nflags && n < (int)sizeof b - 80; k++) {
        const AscVizFlow *f = asc_viz_model_flow(m, st->flags[k]);
        char cat[64];
        fmt_cat(cat, sizeof cat, asc_viz_model_str(m, f->cat));
        fmt_at(at2, sizeof at2, m, f->ts_s);
        n += snprintf(b + n, sizeof b - (size_t)n, "%s%s (set at %s)", k ? ",  " : "", cat, at2);
    }
    text_fit(g, 12, ly, b, C_DEP, maxc);
    SDL_RenderSetClipRect(g->ren, NULL);
}

static const char *const help_lines[] = {
    "asc-viz keys and mouse",
    "",
    "wheel / + / -        zoom in / out around the mouse",
    "drag / Left / Right  pan in time (Shift: faster)",
    "Up / Down / PgUp/Dn  scroll the rows (also Shift+wheel)",
    "f / Home             fit the whole trace",
    "hover                tooltip: instruction, pc, source, cycles,",
    "                     stall reason, bytes, bank-conflict beats",
    "click                select an event: details panel at the bottom;",
    "                     highlights what it waited for: flag arrow,",
    "                     SET_FLAG, producer",
    "/                    search by mnemonic; type, then Enter",
    "Enter / Shift+Enter  next / previous match (n / N also)",
    "Esc                  cancel search, clear selection, close help",
    "c                    show / hide the counter tracks (HBM GB/s,",
    "                     queue occupancy per pipe): step lines",
    "click a core's name  collapse it to one summary row (heat per",
    "                     pipe) or expand it again",
    "e                    expand all cores / collapse all cores",
    "s                    step mode: a cursor on one event; Left /",
    "                     Right move it event by event (Shift: 10);",
    "                     the panel shows the core's pipes at that",
    "                     cycle: running, waiting on which flag,",
    "                     queue contents, and the flags set",
    "?                    toggle this help",
    "q                    quit",
    "",
    "marks: hatched yellow = stall / WAIT_FLAG, red top stripe =",
    "bank-conflict beats, black = SET_FLAG, arrows = flag set -> wait",
    "side panel: busy % of non-stall work, visible window (total)",
};

static void draw_help(VizGfx *g, const AscVizView *v)
{
    int n = (int)(sizeof help_lines / sizeof help_lines[0]);
    int w = 66 * g->cw + 32, h = n * (g->ch + 3) + 24;
    int x = (v->width - w) / 2, y = (v->height - h) / 2;
    fill(g, x + 4, y + 4, w, h, 0x9CA3AF);
    fill(g, x, y, w, h, 0xFFFFFF);
    frame_rect(g, x, y, w, h, C_TITLE);
    for (int i = 0; i < n; i++) text(g, x + 16, y + 12 + i * (g->ch + 3), help_lines[i], i ? C_TEXT : C_SEL, -1);
}

void viz_gfx_draw(VizGfx *g, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    SDL_SetRenderDrawBlendMode(g->ren, SDL_BLENDMODE_NONE);
    color(g, C_BG);
    SDL_RenderClear(g->ren);
    /* row backgrounds */
    for (uint32_t r = 0; r < v->nrows; r++) {
        int y0, y1;
        if (!asc_viz_view_row_band(v, r, &y0, &y1)) continue;
        int a = y0 < v->plot_y0 ? v->plot_y0 : y0, b = y1 > v->plot_y1 ? v->plot_y1 : y1;
        fill(g, v->plot_x0, a, v->plot_x1 - v->plot_x0, b - a, r % 2 ? C_BG_ALT : C_BG);
    }
    for (uint32_t c = 0; c < v->nctrs; c++) {
        int y0, y1;
        if (!asc_viz_view_counter_band(v, c, &y0, &y1)) continue;
        int a = y0 < v->plot_y0 ? v->plot_y0 : y0, b = y1 > v->plot_y1 ? v->plot_y1 : y1;
        fill(g, v->plot_x0, a, v->plot_x1 - v->plot_x0, b - a, 0xFBFBFC);
    }
    for (uint32_t gi = 0; gi < v->ngroups; gi++) {
        int y0, y1;
        if (!asc_viz_view_group_band(v, gi, &y0, &y1)) continue;
        int a = y0 < v->plot_y0 ? v->plot_y0 : y0, b = y1 > v->plot_y1 ? v->plot_y1 : y1;
        fill(g, 0, a, v->width, b - a, gi % 2 ? C_BG_ALT : C_BG);
        fill(g, 0, b - 1, v->width, 1, C_GRID);
    }
    draw_axis(g, v);
    draw_labels(g, m, v);
    draw_rows(g, m, v);
    draw_groups(g, m, v);
    draw_counters(g, m, v);
    draw_flows(g, m, v, ui);
    if (ui) {
        if (ui->matches)
            for (uint32_t k = 0; k < ui->matches->count && k < 20000; k++) {
                const AscVizEvent *e = asc_viz_model_event(m, ui->matches->items[k]);
                if (e->t1_us >= v->t0 && e->t0_us <= v->t1) outline_event(g, m, v, ui->matches->items[k], C_MATCH, 1);
            }
        if (ui->matches && ui->match_cur >= 0 && ui->match_cur < (int64_t)ui->matches->count)
            outline_event(g, m, v, ui->matches->items[ui->match_cur], C_MATCH, 3);
        outline_event(g, m, v, ui->deps.producer, C_DEP, 2);
        outline_event(g, m, v, ui->deps.set, C_DEP, 2);
        outline_event(g, m, v, ui->deps.wait, C_DEP, 2);
        outline_event(g, m, v, ui->selected, C_SEL, 3);
        if (ui->hover >= 0 && ui->hover != ui->selected) outline_event(g, m, v, ui->hover, 0x111827, 1);
    }
    draw_panel(g, m, v);
    draw_title(g, m, v, ui);
    draw_footer(g, m, v, ui);
    if (ui && ui->step >= 0) draw_step(g, m, v, ui);
    else if (ui) draw_details(g, m, v, ui);
    if (ui) {
        tooltip(g, m, v, ui);
        if (ui->help) draw_help(g, v);
    }
}

/* ---- offscreen ---------------------------------------------------------- */

struct AscVizOffscreen {
    SDL_Surface *surf;
    SDL_Renderer *ren;
    VizGfx gfx;
    uint8_t *rgba;
    int w, h;
};

AscVizOffscreen *asc_viz_offscreen_create(int w, int h, const char *font_path, AscVizError *err)
{
    if (w < 64 || h < 64 || w > 16384 || h > 16384) {
        set_err(err, "image size must be between 64x64 and 16384x16384%s", "");
        return NULL;
    }
    AscVizOffscreen *o = calloc(1, sizeof *o);
    if (!o) { set_err(err, "out of memory%s", ""); return NULL; }
    o->w = w;
    o->h = h;
    o->surf = SDL_CreateRGBSurfaceWithFormat(0, w, h, 32, SDL_PIXELFORMAT_ARGB8888);
    o->rgba = malloc((size_t)w * h * 4);
    if (!o->surf || !o->rgba || !(o->ren = SDL_CreateSoftwareRenderer(o->surf))) {
        set_err(err, "cannot create the software renderer: %s", SDL_GetError());
        asc_viz_offscreen_free(o);
        return NULL;
    }
    if (viz_gfx_init(&o->gfx, o->ren, font_path, err)) {
        asc_viz_offscreen_free(o);
        return NULL;
    }
    return o;
}

void asc_viz_offscreen_draw(AscVizOffscreen *o, const AscVizModel *m, const AscVizView *v, const AscVizUi *ui)
{
    viz_gfx_draw(&o->gfx, m, v, ui);
    SDL_RenderReadPixels(o->ren, NULL, SDL_PIXELFORMAT_ABGR8888, o->rgba, o->w * 4);
}

const uint8_t *asc_viz_offscreen_pixels(const AscVizOffscreen *o, int *stride)
{
    if (stride) *stride = o->w * 4;
    return o->rgba;
}

void asc_viz_offscreen_free(AscVizOffscreen *o)
{
    if (!o) return;
    viz_gfx_free(&o->gfx);
    if (o->ren) SDL_DestroyRenderer(o->ren);
    if (o->surf) SDL_FreeSurface(o->surf);
    free(o->rgba);
    free(o);
}

/* The groups with rows that v does not show fully, as "a, b, ..." */
static void left_out(const AscVizModel *m, const AscVizView *v, AscVizRenderInfo *info)
{
    memset(info, 0, sizeof *info);
    info->width = v->width;
    info->height = v->height;
    size_t len = 0, cap = sizeof info->groups_left_out;
    for (uint32_t gi = 0; gi < v->ngroups; gi++) {
        AscVizGroupInfo gr = asc_viz_model_group(m, gi);
        if (!gr.nrows) continue;
        info->ngroups++;
        if (asc_viz_view_group_shown(v, gi)) {
            info->groups_shown++;
            continue;
        }
        size_t need = strlen(gr.name) + 2;
        if (len + need + 4 >= cap) {
            if (len + 4 < cap && (len < 3 || strcmp(info->groups_left_out + len - 3, "..."))) {
                memcpy(info->groups_left_out + len, len ? ", ..." : "...", len ? 6 : 4);
                len += len ? 5 : 3;
            }
            continue;
        }
        len += (size_t)snprintf(info->groups_left_out + len, cap - len, "%s%s", len ? ", " : "", gr.name);
    }
}

int asc_viz_render_png_info(const AscVizModel *m, const AscVizRenderDesc *desc, const char *path,
                            AscVizRenderInfo *info, AscVizError *err)
{
    AscVizRenderDesc d = desc ? *desc : (AscVizRenderDesc){0};
    AscVizViewDesc vd = {.width = d.width > 0 ? d.width : 1600, .height = d.height > 0 ? d.height : 900};
    if (d.has_cycles && !(asc_viz_model_mhz(m) > 0))
        return set_err(err, "--cycles needs a clock: the trace has no otherData.clock_mhz; pass --mhz N%s", "");
    if ((d.has_cycles && !(d.c1 > d.c0)) || (d.has_us && !(d.t1_us > d.t0_us)))
        return set_err(err, "the window A:B must have B > A%s", "");
    AscVizView v;
    if (asc_viz_view_init(&v, m, &vd)) return set_err(err, "out of memory%s", "");
    AscVizRenderInfo inf;
    left_out(m, &v, &inf);
    if (d.height <= 0 && inf.groups_shown < inf.ngroups) {
        /* pick a height: the one that shows this layout whole (collapsed groups stay so) */
        int h = asc_viz_view_full_height(&v);
        asc_viz_view_resize(&v, v.width, h < 16384 ? h : 16384);
        left_out(m, &v, &inf);
    }
    if (d.has_cycles) asc_viz_view_set_window(&v, d.c0 / asc_viz_model_mhz(m), d.c1 / asc_viz_model_mhz(m));
    else if (d.has_us) asc_viz_view_set_window(&v, d.t0_us, d.t1_us);
    AscVizOffscreen *o = asc_viz_offscreen_create(v.width, v.height, d.font_path, err);
    if (!o) {
        asc_viz_view_free(&v);
        return -1;
    }
    AscVizUi ui;
    asc_viz_ui_init(&ui);
    ui.title = d.title;
    asc_viz_offscreen_draw(o, m, &v, &ui);
    int stride;
    const uint8_t *px = asc_viz_offscreen_pixels(o, &stride);
    int rc = asc_viz_png_write(path, px, v.width, v.height, stride, err);
    asc_viz_offscreen_free(o);
    asc_viz_view_free(&v);
    if (info) *info = inf;
    return rc;
}

int asc_viz_render_png(const AscVizModel *m, const AscVizRenderDesc *desc, const char *path, AscVizError *err)
{
    return asc_viz_render_png_info(m, desc, path, NULL, err);
}
