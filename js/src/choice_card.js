// placeholder: replaced by the choice card implementation
function render({ model, el }) {
  el.textContent = "choice card";
}
export default { render };
