// An optional chime when a decision becomes this seat's (issue 15): off by default, the choice
// kept in localStorage. Two short tones made with WebAudio, so no sound file is needed.

const KEY = "kaladan.sound";
let context = null;

export const soundOn = () => localStorage.getItem(KEY) === "on";

/** Turn the chime on or off. Called from the setting's own click, which lets the browser
 * start audio at all (autoplay rules), so the context is made here. */
export function setSound(on) {
  localStorage.setItem(KEY, on ? "on" : "off");
  if (on) audio();
}

function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  if (context.state === "suspended") context.resume();
  return context;
}

/** Play the chime when the setting is on. */
export function chime() {
  if (!soundOn()) return;
  const ctx = audio();
  if (!ctx) return;
  [660, 880].forEach((frequency, i) => {
    const start = ctx.currentTime + i * 0.16;
    const tone = ctx.createOscillator();
    const gain = ctx.createGain();
    tone.type = "sine";
    tone.frequency.value = frequency;
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.2, start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + 0.15);
    tone.connect(gain).connect(ctx.destination);
    tone.start(start);
    tone.stop(start + 0.16);
  });
}
